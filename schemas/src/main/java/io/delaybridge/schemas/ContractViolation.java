package io.delaybridge.schemas;

import java.util.Objects;

/**
 * A record breaks the header contract: permanent, so the record goes to the deadletter topic at once, never
 * retried. {@link #code()} is the stable reason for {@value DelayHeaders#ERROR}; {@link #getMessage()} is the
 * text for {@value DelayHeaders#ERROR_MESSAGE}, naming the header, the offending value and what is accepted:
 *
 * <pre>
 * delay-ms: "5y" is not a delay: unknown unit "y"; use integer milliseconds, a number with a unit
 * (250ms, 30s, 5m, 2h, 7d) or ISO-8601 (PT30M)
 * </pre>
 *
 * <p>No stack trace is captured: a violation describes bad input, not a bug, and a flood of bad records
 * should not cost a stack walk each.
 */
public final class ContractViolation extends Exception {

    private static final long serialVersionUID = 1L;

    /** Longest part of a value shown in a message, in code points. */
    static final int MAX_SHOWN = 100;

    private final ErrorCode code;

    /**
     * @param code    stable reason code
     * @param message human-readable reason; build values into it with {@link #quote(String)}
     */
    public ContractViolation(ErrorCode code, String message) {
        super(message, null, false, false);
        this.code = Objects.requireNonNull(code, "code");
    }

    /** @return the stable reason code */
    public ErrorCode code() {
        return code;
    }

    /**
     * Quotes a header value for a message. Control, format and other invisible characters are escaped
     * ({@code \n}, {@code \u200B}) so that a stray byte is visible, and values longer than 100 code points are cut
     * with their full length noted, so that a megabyte of garbage does not end up in a header.
     *
     * @param value any string, may be null
     * @return the value in double quotes, escaped and truncated, or {@code null}
     */
    public static String quote(String value) {
        if (value == null) {
            return "null";
        }
        StringBuilder out = new StringBuilder(Math.min(value.length(), MAX_SHOWN) + 8).append('"');
        int shown = 0;
        int i = 0;
        while (i < value.length() && shown < MAX_SHOWN) {
            int cp = value.codePointAt(i);
            i += Character.charCount(cp);
            shown++;
            appendEscaped(out, cp);
        }
        out.append('"');
        if (i < value.length()) {
            int total = value.codePointCount(0, value.length());
            out.setLength(out.length() - 1);
            out.append("...\" (").append(total).append(" characters)");
        }
        return out.toString();
    }

    private static void appendEscaped(StringBuilder out, int cp) {
        switch (cp) {
            case '"':
                out.append("\\\"");
                return;
            case '\\':
                out.append("\\\\");
                return;
            case '\n':
                out.append("\\n");
                return;
            case '\r':
                out.append("\\r");
                return;
            case '\t':
                out.append("\\t");
                return;
            default:
                break;
        }
        if (isVisible(cp)) {
            out.appendCodePoint(cp);
        } else if (cp <= 0xFFFF) {
            out.append(String.format("\\u%04X", cp));
        } else {
            out.append(String.format("\\U%06X", cp));
        }
    }

    private static boolean isVisible(int cp) {
        if (cp == ' ') {
            return true;
        }
        switch (Character.getType(cp)) {
            case Character.CONTROL:
            case Character.FORMAT:
            case Character.SURROGATE:
            case Character.PRIVATE_USE:
            case Character.UNASSIGNED:
            case Character.LINE_SEPARATOR:
            case Character.PARAGRAPH_SEPARATOR:
            case Character.SPACE_SEPARATOR:
                return false;
            default:
                return true;
        }
    }
}

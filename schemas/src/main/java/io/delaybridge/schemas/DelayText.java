package io.delaybridge.schemas;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;

/**
 * Reads the values of {@value DelayHeaders#DELAY_MS} and {@value DelayHeaders#UNTIL}.
 *
 * <h2>Delays</h2>
 * <table>
 *   <caption>Accepted delay forms</caption>
 *   <tr><th>form</th><th>examples</th></tr>
 *   <tr><td>integer milliseconds</td><td>{@code 0}, {@code 1500}</td></tr>
 *   <tr><td>number and unit {@code ms s m h d}</td><td>{@code 250ms}, {@code 30s}, {@code 5m}, {@code 2h},
 *       {@code 7d}, {@code 1.5s}, {@code 30 s}</td></tr>
 *   <tr><td>ISO-8601 duration</td><td>{@code PT30M}, {@code PT1H30M}, {@code P3D}, {@code PT0.5S}</td></tr>
 * </table>
 * Decimals are accepted with a unit ({@code 1.5s} is 1500 ms) and rounded down to whole milliseconds; a bare
 * number is milliseconds and must be whole, so {@code 1.5} is rejected rather than guessed at. Units are
 * lower case only: {@code 5M} would read as months to some, minutes to others. A day is 24 hours. Surrounding
 * whitespace is ignored. Negative delays, unknown units and values beyond {@link Long#MAX_VALUE} milliseconds
 * are rejected.
 *
 * <h2>Due times</h2>
 * Epoch milliseconds ({@code 1795334400000}) or an ISO-8601 date-time with an offset
 * ({@code 2026-11-22T08:00:00Z}, {@code 2026-11-22T09:00:00+01:00}, fractions of a second allowed and rounded
 * down). A date-time without an offset is rejected: the bridge would have to guess a zone.
 *
 * <p>Both parsers throw {@link IllegalArgumentException} whose message quotes the value, says what is wrong
 * and what is accepted; {@link IntakeParser} prefixes it with the header name.
 */
public final class DelayText {

    /** Longer values are rejected before any number parsing, so garbage costs nothing. */
    static final int MAX_LENGTH = 64;

    static final String DELAY_FORMS =
            "use integer milliseconds, a number with a unit (250ms, 30s, 5m, 2h, 7d) or ISO-8601 (PT30M)";
    static final String INSTANT_FORMS =
            "use epoch milliseconds or an ISO-8601 instant (2026-11-22T08:00:00Z, 2026-11-22T09:00:00+01:00)";

    private static final long SECOND = 1000L;
    private static final long MINUTE = 60 * SECOND;
    private static final long HOUR = 60 * MINUTE;
    private static final long DAY = 24 * HOUR;
    private static final BigDecimal MAX_MILLIS = BigDecimal.valueOf(Long.MAX_VALUE);

    private DelayText() {}

    /**
     * Parses a delay.
     *
     * @param text a delay such as {@code 1500}, {@code 30s}, {@code 1.5h} or {@code PT30M}
     * @return the delay in milliseconds, zero or more
     * @throws IllegalArgumentException if the text is not a delay, is negative or overflows
     */
    public static long parseDelayMillis(String text) {
        String t = text == null ? "" : text.strip();
        if (t.isEmpty()) {
            throw notADelay(text, "empty");
        }
        if (t.length() > MAX_LENGTH) {
            throw notADelay(text, "longer than " + MAX_LENGTH + " characters");
        }
        char first = t.charAt(0);
        char second = t.length() > 1 ? t.charAt(1) : ' ';
        if (first == 'P' || first == 'p' || ((first == '-' || first == '+') && (second == 'P' || second == 'p'))) {
            return parseIsoDuration(text, t);
        }
        if (first == '-') {
            throw notADelay(text, "negative (0 delivers at once)");
        }
        int i = 0;
        while (i < t.length() && isAsciiDigit(t.charAt(i))) {
            i++;
        }
        if (i == 0) {
            throw notADelay(text, "does not start with a number");
        }
        int numberEnd = i;
        boolean fraction = false;
        if (i < t.length() && t.charAt(i) == '.') {
            i++;
            int fractionStart = i;
            while (i < t.length() && isAsciiDigit(t.charAt(i))) {
                i++;
            }
            if (i == fractionStart) {
                throw notADelay(text, "no digits after the decimal point");
            }
            fraction = true;
            numberEnd = i;
        }
        while (i < t.length() && Character.isWhitespace(t.charAt(i))) {
            i++;
        }
        String unit = t.substring(i);
        String number = t.substring(0, numberEnd);
        if (unit.isEmpty()) {
            if (fraction) {
                throw notADelay(
                        text, "a number without a unit is milliseconds and must be whole (write 1.5s, not 1.5)");
            }
            try {
                return Long.parseLong(number);
            } catch (NumberFormatException e) {
                throw notADelay(text, "too large");
            }
        }
        long unitMillis = unitMillis(unit);
        if (unitMillis == 0) {
            throw notADelay(text, "unknown unit " + ContractViolation.quote(unit) + " (ms, s, m, h, d)");
        }
        BigDecimal millis =
                new BigDecimal(number).multiply(BigDecimal.valueOf(unitMillis)).setScale(0, RoundingMode.DOWN);
        if (millis.compareTo(MAX_MILLIS) > 0) {
            throw notADelay(text, "too large");
        }
        return millis.longValueExact();
    }

    /**
     * Parses a due time.
     *
     * @param text epoch milliseconds or an ISO-8601 date-time with an offset
     * @return the instant in epoch milliseconds
     * @throws IllegalArgumentException if the text is neither, or lies outside the range of epoch milliseconds
     */
    public static long parseInstantMillis(String text) {
        String t = text == null ? "" : text.strip();
        if (t.isEmpty()) {
            throw notAnInstant(text, "empty");
        }
        if (t.length() > MAX_LENGTH) {
            throw notAnInstant(text, "longer than " + MAX_LENGTH + " characters");
        }
        if (allAsciiDigits(t)) {
            try {
                return Long.parseLong(t);
            } catch (NumberFormatException e) {
                throw notAnInstant(text, "too large");
            }
        }
        if (t.charAt(0) == '-') {
            throw notAnInstant(text, "negative");
        }
        try {
            return OffsetDateTime.parse(t).toInstant().toEpochMilli();
        } catch (DateTimeParseException e) {
            if (isLocalDateTime(t)) {
                throw notAnInstant(text, "no offset; add Z for UTC or an offset such as +01:00");
            }
            throw notAnInstant(text, "not epoch milliseconds nor an ISO-8601 instant");
        } catch (ArithmeticException | DateTimeException e) {
            throw notAnInstant(text, "out of range");
        }
    }

    /**
     * Formats milliseconds in the largest unit that divides them exactly, the way the delay parser reads them
     * back: {@code 7d}, {@code 90m}, {@code 1500ms}. For messages and logs.
     *
     * @param millis a duration in milliseconds
     * @return e.g. {@code "30s"}
     */
    public static String formatMillis(long millis) {
        if (millis == 0) {
            return "0ms";
        }
        if (millis % DAY == 0) {
            return millis / DAY + "d";
        }
        if (millis % HOUR == 0) {
            return millis / HOUR + "h";
        }
        if (millis % MINUTE == 0) {
            return millis / MINUTE + "m";
        }
        if (millis % SECOND == 0) {
            return millis / SECOND + "s";
        }
        return millis + "ms";
    }

    private static long parseIsoDuration(String text, String t) {
        Duration d;
        try {
            d = Duration.parse(t);
        } catch (DateTimeParseException e) {
            if (e.getCause() instanceof ArithmeticException) {
                throw notADelay(text, "too large");
            }
            throw notADelay(text, "not an ISO-8601 duration of days, hours, minutes and seconds (PT30M, P3DT12H)");
        }
        if (d.isNegative()) {
            throw notADelay(text, "negative (0 delivers at once)");
        }
        try {
            return d.toMillis();
        } catch (ArithmeticException e) {
            throw notADelay(text, "too large");
        }
    }

    private static boolean isLocalDateTime(String t) {
        try {
            LocalDateTime.parse(t);
            return true;
        } catch (DateTimeParseException e) {
            return false;
        }
    }

    private static long unitMillis(String unit) {
        switch (unit) {
            case "ms":
                return 1;
            case "s":
                return SECOND;
            case "m":
                return MINUTE;
            case "h":
                return HOUR;
            case "d":
                return DAY;
            default:
                return 0;
        }
    }

    /** True if every character is 0-9 (true for ""). A loop, not a stream: it runs for every intake record. */
    static boolean allAsciiDigits(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (!isAsciiDigit(s.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    private static boolean isAsciiDigit(int c) {
        return c >= '0' && c <= '9';
    }

    private static IllegalArgumentException notADelay(String text, String reason) {
        return new IllegalArgumentException(
                ContractViolation.quote(text) + " is not a delay: " + reason + "; " + DELAY_FORMS);
    }

    private static IllegalArgumentException notAnInstant(String text, String reason) {
        return new IllegalArgumentException(
                ContractViolation.quote(text) + " is not a due time: " + reason + "; " + INSTANT_FORMS);
    }
}

package io.delaybridge.bridge.rules;

import com.fasterxml.jackson.databind.JsonNode;
import io.delaybridge.schemas.ContractViolation;
import io.delaybridge.schemas.ErrorCode;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A message id built from a source record: literal text with placeholders, e.g. {@code order-timeout:{key}}.
 *
 * <table>
 *   <caption>Placeholders</caption>
 *   <tr><th>placeholder</th><th>value</th></tr>
 *   <tr><td>{@code {key}}</td><td>the record key as UTF-8 text (a record without a key is refused, MISSING_KEY)</td></tr>
 *   <tr><td>{@code {topic}}, {@code {partition}}, {@code {offset}}</td><td>where the source record is</td></tr>
 *   <tr><td>{@code {rule}}</td><td>the rule's name</td></tr>
 *   <tr><td>{@code {header:NAME}}</td><td>the last value of header NAME (absent: MISSING_FIELD)</td></tr>
 *   <tr><td>{@code {field:PATH}}</td><td>a field of the JSON value, dotted path (absent: MISSING_FIELD)</td></tr>
 * </table>
 * Braces are not allowed outside placeholders. Immutable.
 */
public final class IdTemplate {

    /** The id of a scheduling rule without {@code id:}: unique per source record, stable across re-reads. */
    public static final String DEFAULT = "{rule}:{topic}-{partition}-{offset}";

    private enum Kind {
        TEXT,
        KEY,
        TOPIC,
        PARTITION,
        OFFSET,
        RULE,
        HEADER,
        FIELD
    }

    private record Part(Kind kind, String text) {}

    private final String source;
    private final List<Part> parts;

    private IdTemplate(String source, List<Part> parts) {
        this.source = source;
        this.parts = parts;
    }

    /**
     * @throws IllegalArgumentException naming the problem and the placeholders known
     */
    public static IdTemplate parse(String template) {
        Objects.requireNonNull(template, "template");
        if (template.isBlank()) {
            throw new IllegalArgumentException("is blank: give an id such as order-timeout:{key}");
        }
        List<Part> parts = new ArrayList<>();
        int i = 0;
        while (i < template.length()) {
            int open = template.indexOf('{', i);
            int stray = template.indexOf('}', i);
            if (stray >= 0 && (open < 0 || stray < open)) {
                throw new IllegalArgumentException("has a '}' without '{' at index " + stray + " in \"" + template
                        + "\"; placeholders are " + known());
            }
            if (open < 0) {
                parts.add(new Part(Kind.TEXT, template.substring(i)));
                break;
            }
            if (open > i) {
                parts.add(new Part(Kind.TEXT, template.substring(i, open)));
            }
            int close = template.indexOf('}', open);
            if (close < 0) {
                throw new IllegalArgumentException("has a '{' without '}' at index " + open + " in \"" + template
                        + "\"; placeholders are " + known());
            }
            parts.add(placeholder(template, template.substring(open + 1, close)));
            i = close + 1;
        }
        return new IdTemplate(template, List.copyOf(parts));
    }

    private static Part placeholder(String template, String name) {
        switch (name) {
            case "key":
                return new Part(Kind.KEY, name);
            case "topic":
                return new Part(Kind.TOPIC, name);
            case "partition":
                return new Part(Kind.PARTITION, name);
            case "offset":
                return new Part(Kind.OFFSET, name);
            case "rule":
                return new Part(Kind.RULE, name);
            default:
                break;
        }
        if (name.startsWith("header:") && name.length() > "header:".length()) {
            return new Part(Kind.HEADER, name.substring("header:".length()));
        }
        if (name.startsWith("field:") && name.length() > "field:".length()) {
            return new Part(Kind.FIELD, name.substring("field:".length()));
        }
        throw new IllegalArgumentException(
                "has the unknown placeholder {" + name + "} in \"" + template + "\"; placeholders are " + known());
    }

    private static String known() {
        return "{key}, {topic}, {partition}, {offset}, {rule}, {header:NAME}, {field:PATH}";
    }

    /** The id for one source record. */
    String render(String rule, RuleInput in) throws ContractViolation {
        StringBuilder id = new StringBuilder(64);
        for (Part p : parts) {
            switch (p.kind) {
                case TEXT -> id.append(p.text);
                case KEY -> id.append(in.keyText(rule, "the template \"" + source + "\""));
                case TOPIC -> id.append(in.topic);
                case PARTITION -> id.append(in.partition);
                case OFFSET -> id.append(in.offset);
                case RULE -> id.append(rule);
                case HEADER -> {
                    String v = in.header(p.text);
                    if (v == null) {
                        throw missing(rule, "header " + ContractViolation.quote(p.text));
                    }
                    id.append(v);
                }
                case FIELD -> {
                    JsonNode v = in.field(rule, p.text);
                    if (v == null || v.isContainerNode()) {
                        throw missing(
                                rule,
                                "JSON field " + ContractViolation.quote(p.text)
                                        + (v == null ? "" : " as text or a number (it is an object or array)"));
                    }
                    id.append(v.asText());
                }
                default -> throw new IllegalStateException(p.kind.name());
            }
        }
        return id.toString();
    }

    private ContractViolation missing(String rule, String what) {
        return new ContractViolation(
                ErrorCode.MISSING_FIELD,
                "rule " + rule + ": the template \"" + source + "\" needs the " + what
                        + ", which the record does not carry");
    }

    /** Whether the template uses {@code {offset}}: ids that no other record can reproduce. */
    public boolean usesOffset() {
        return parts.stream().anyMatch(p -> p.kind == Kind.OFFSET);
    }

    /**
     * Whether some id rendered by this template could equal one rendered by {@code other}. A conservative test on
     * the literal text before the first and after the last placeholder: if those disagree, no id can be shared.
     *
     * @param rule      the name this template renders {@code {rule}} with
     * @param other     another template
     * @param otherRule the name {@code other} renders {@code {rule}} with
     */
    public boolean canMatch(String rule, IdTemplate other, String otherRule) {
        List<Part> a = withRule(rule);
        List<Part> b = other.withRule(otherRule);
        boolean aFixed = a.stream().allMatch(p -> p.kind == Kind.TEXT);
        boolean bFixed = b.stream().allMatch(p -> p.kind == Kind.TEXT);
        if (aFixed && bFixed) {
            return text(a).equals(text(b));
        }
        String ap = prefix(a);
        String bp = prefix(b);
        String as = suffix(a);
        String bs = suffix(b);
        boolean prefixes = ap.startsWith(bp) || bp.startsWith(ap);
        boolean suffixes = as.endsWith(bs) || bs.endsWith(as);
        return prefixes && suffixes;
    }

    private List<Part> withRule(String rule) {
        List<Part> out = new ArrayList<>();
        for (Part p : parts) {
            Part q = p.kind == Kind.RULE ? new Part(Kind.TEXT, rule) : p;
            if (q.kind == Kind.TEXT && !out.isEmpty() && out.get(out.size() - 1).kind == Kind.TEXT) {
                out.set(out.size() - 1, new Part(Kind.TEXT, out.get(out.size() - 1).text + q.text));
            } else {
                out.add(q);
            }
        }
        return out;
    }

    private static String text(List<Part> parts) {
        StringBuilder sb = new StringBuilder();
        parts.forEach(p -> sb.append(p.text));
        return sb.toString();
    }

    private static String prefix(List<Part> parts) {
        return !parts.isEmpty() && parts.get(0).kind == Kind.TEXT ? parts.get(0).text : "";
    }

    private static String suffix(List<Part> parts) {
        return !parts.isEmpty() && parts.get(parts.size() - 1).kind == Kind.TEXT
                ? parts.get(parts.size() - 1).text
                : "";
    }

    @Override
    public String toString() {
        return source;
    }
}

package io.delaybridge.schemas;

import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import java.util.stream.Collectors;

/**
 * Which topics a delayed record may be delivered to. Without it, anyone who can write to the intake could make
 * the bridge write to any topic its credentials reach.
 *
 * <p>Always forbidden: names starting with {@code _} (Kafka internals such as {@code __consumer_offsets}), the
 * intake topic (a record would loop forever) and the deadletter topic (it would forge deadletter records). When
 * allow patterns are given, the target must match one of them in full.
 *
 * <pre>{@code
 * TargetPolicy policy = new TargetPolicy("delay-intake", "delay-deadletter", List.of("orders\\..*", "billing-.*"));
 * policy.check("orders.timeout");   // fine
 * policy.check("payments");         // ContractViolation TARGET_FORBIDDEN
 * }</pre>
 *
 * Immutable and thread-safe.
 */
public final class TargetPolicy {

    /** Kafka's own limit (org.apache.kafka.common.internals.Topic). */
    static final int MAX_TOPIC_LENGTH = 249;

    private final String intakeTopic;
    private final String deadletterTopic;
    private final List<Pattern> allow;

    /**
     * @param intakeTopic     the topic the bridge reads
     * @param deadletterTopic the topic the bridge writes rejected records to
     * @param allowPatterns   Java regular expressions, each matched against the whole topic name; empty allows
     *                        every topic not forbidden above
     * @throws IllegalArgumentException if a pattern is not a valid regular expression
     */
    public TargetPolicy(String intakeTopic, String deadletterTopic, List<String> allowPatterns) {
        this.intakeTopic = Objects.requireNonNull(intakeTopic, "intakeTopic");
        this.deadletterTopic = Objects.requireNonNull(deadletterTopic, "deadletterTopic");
        this.allow = Objects.requireNonNull(allowPatterns, "allowPatterns").stream()
                .map(TargetPolicy::compile)
                .collect(Collectors.toUnmodifiableList());
    }

    /**
     * Checks a target topic name.
     *
     * @param target the value of {@value DelayHeaders#TARGET}
     * @throws ContractViolation {@link ErrorCode#INVALID_TARGET} if it is not a legal Kafka topic name,
     *                           {@link ErrorCode#TARGET_FORBIDDEN} if the bridge must not write to it
     */
    public void check(String target) throws ContractViolation {
        String invalid = whyIllegal(target);
        if (invalid != null) {
            throw new ContractViolation(
                    ErrorCode.INVALID_TARGET,
                    DelayHeaders.TARGET + ": "
                            + ContractViolation.quote(target) + " is not a Kafka topic name: " + invalid
                            + "; use 1 to " + MAX_TOPIC_LENGTH + " characters of a-z A-Z 0-9 . _ -");
        }
        if (target.startsWith("_")) {
            throw forbidden(target, "names starting with \"_\" are Kafka internal topics");
        }
        if (target.equals(intakeTopic)) {
            throw forbidden(target, "it is the intake topic; the record would loop");
        }
        if (target.equals(deadletterTopic)) {
            throw forbidden(target, "it is the deadletter topic");
        }
        if (!allow.isEmpty() && allow.stream().noneMatch(p -> p.matcher(target).matches())) {
            throw forbidden(
                    target,
                    "it matches none of the allowed patterns "
                            + allow.stream().map(Pattern::pattern).collect(Collectors.joining(", ", "[", "]")));
        }
    }

    private static String whyIllegal(String name) {
        if (name == null || name.isEmpty()) {
            return "empty";
        }
        if (name.equals(".") || name.equals("..")) {
            return "\".\" and \"..\" are reserved";
        }
        if (name.length() > MAX_TOPIC_LENGTH) {
            return name.length() + " characters";
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean legal = (c >= 'a' && c <= 'z')
                    || (c >= 'A' && c <= 'Z')
                    || (c >= '0' && c <= '9')
                    || c == '.'
                    || c == '_'
                    || c == '-';
            if (!legal) {
                return "illegal character " + ContractViolation.quote(String.valueOf(c)) + " at index " + i;
            }
        }
        return null;
    }

    private static ContractViolation forbidden(String target, String why) {
        return new ContractViolation(
                ErrorCode.TARGET_FORBIDDEN,
                DelayHeaders.TARGET + ": " + ContractViolation.quote(target) + " is not allowed: " + why);
    }

    private static Pattern compile(String regex) {
        try {
            return Pattern.compile(Objects.requireNonNull(regex, "allow pattern"));
        } catch (PatternSyntaxException e) {
            throw new IllegalArgumentException(
                    "target allow pattern " + ContractViolation.quote(regex)
                            + " is not a valid Java regular expression: " + e.getDescription(),
                    e);
        }
    }

    @Override
    public String toString() {
        return "TargetPolicy[intake=" + intakeTopic + ", deadletter=" + deadletterTopic + ", allow="
                + allow.stream().map(Pattern::pattern).collect(Collectors.toList()) + "]";
    }
}

package io.delaybridge.bridge.rules;

import com.fasterxml.jackson.databind.JsonNode;
import io.delaybridge.schemas.ContractViolation;
import io.delaybridge.schemas.DelayText;
import io.delaybridge.schemas.ErrorCode;

/**
 * Where a scheduling rule takes the delay from: a fixed delay, a header, or a field of the JSON value, the last two
 * with an optional fallback for records that do not carry it. Values read from a record use the grammar of
 * {@code delay-ms} ({@link DelayText#parseDelayMillis}): {@code 1500}, {@code 30s}, {@code 5m}, {@code PT30M}; a JSON
 * number is milliseconds.
 */
public sealed interface RuleDelay {

    /** The delay in milliseconds after the source record's timestamp. */
    long millis(String rule, RuleInput in) throws ContractViolation;

    /** {@code delay: 30m} */
    record Fixed(long delayMillis) implements RuleDelay {
        @Override
        public long millis(String rule, RuleInput in) {
            return delayMillis;
        }

        @Override
        public String toString() {
            return DelayText.formatMillis(delayMillis);
        }
    }

    /** {@code delayHeader: x-timeout}, with {@code delayFallback} (null: none) */
    record FromHeader(String header, Long fallbackMillis) implements RuleDelay {
        @Override
        public long millis(String rule, RuleInput in) throws ContractViolation {
            String text = in.header(header);
            if (text == null) {
                return fallback(rule, fallbackMillis, "header " + ContractViolation.quote(header));
            }
            return parse(rule, "header " + ContractViolation.quote(header), text);
        }

        @Override
        public String toString() {
            return "header " + header
                    + (fallbackMillis == null ? "" : ", else " + DelayText.formatMillis(fallbackMillis));
        }
    }

    /** {@code delayField: payment.timeout}, with {@code delayFallback} (null: none) */
    record FromField(String path, Long fallbackMillis) implements RuleDelay {
        @Override
        public long millis(String rule, RuleInput in) throws ContractViolation {
            String what = "JSON field " + ContractViolation.quote(path);
            JsonNode node = in.field(rule, path);
            if (node == null) {
                return fallback(rule, fallbackMillis, what);
            }
            if (node.isIntegralNumber() && node.canConvertToLong() && node.asLong() >= 0) {
                return node.asLong();
            }
            if (node.isTextual()) {
                return parse(rule, what, node.asText());
            }
            throw new ContractViolation(
                    ErrorCode.INVALID_DELAY,
                    "rule " + rule + ": " + what + " is " + node
                            + ", not a delay; give whole milliseconds as a number, or a text such as \"30s\", \"5m\", \"PT30M\"");
        }

        @Override
        public String toString() {
            return "field " + path + (fallbackMillis == null ? "" : ", else " + DelayText.formatMillis(fallbackMillis));
        }
    }

    private static long fallback(String rule, Long fallbackMillis, String what) throws ContractViolation {
        if (fallbackMillis != null) {
            return fallbackMillis;
        }
        throw new ContractViolation(
                ErrorCode.MISSING_DELAY,
                "rule " + rule + ": the record has no " + what
                        + " and the rule has no delayFallback; add the " + what
                        + " to the source records or a delayFallback"
                        + " to the rule");
    }

    private static long parse(String rule, String what, String text) throws ContractViolation {
        try {
            return DelayText.parseDelayMillis(text);
        } catch (IllegalArgumentException e) {
            throw new ContractViolation(ErrorCode.INVALID_DELAY, "rule " + rule + ": " + what + ": " + e.getMessage());
        }
    }
}

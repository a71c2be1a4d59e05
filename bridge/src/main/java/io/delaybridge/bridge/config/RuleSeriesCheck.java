package io.delaybridge.bridge.config;

import static io.delaybridge.bridge.config.RuleCheck.quoted;

import io.delaybridge.bridge.rules.RuleSeries;
import io.delaybridge.schemas.ContractViolation;
import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.schemas.DelayText;
import io.delaybridge.schemas.SeriesHeaders;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * The series keys of a delay rule ({@code cron}, {@code zone}, {@code every}, {@code end}, {@code count},
 * {@code missed}), checked at
 * start-up. What recurs is read by the intake's own series parser ({@link SeriesHeaders}), from the headers the rule
 * will write, so a rule never starts with a schedule the intake would deadletter; each problem names the rule's key,
 * its value and the fix.
 */
final class RuleSeriesCheck {

    /** The record timestamp the check reads the schedule at: any will do, a cron expression is checked for 9 years. */
    private static final long REFERENCE = 1_767_225_600_000L; // 2026-01-01T00:00:00Z

    /** The keys that are series headers as they are: {@code cron} is {@code delay-cron}. */
    private static final String[] HEADER_KEYS = {"cron", "zone", "every", "missed"};

    private RuleSeriesCheck() {}

    /** Adds what is wrong with {@code rule}'s series keys; {@code key} names the rule. */
    static void check(String key, RuleFactory rule, SettingsCheck.Problems problems) {
        Map<String, Object> keys = new LinkedHashMap<>();
        keys.put("cron", rule.getCron());
        keys.put("zone", rule.getZone());
        keys.put("every", rule.getEvery());
        keys.put("end", rule.getEnd());
        keys.put("count", rule.getCount());
        keys.put("missed", rule.getMissed());
        if (rule.getCron() == null && rule.getEvery() == null) {
            keys.forEach((name, value) -> {
                if (value != null) {
                    problems.add(
                            key + "." + name,
                            "is " + quoted(value) + ", which belongs to a series, but the rule has no cron or every:"
                                    + " add cron (cron: \"0 9 * * *\" with zone: Europe/Berlin) or every (every: 1d),"
                                    + " or drop " + name + " for one record per source record");
                }
            });
        } else if (rule.getCron() != null && rule.getEvery() != null) {
            problems.add(
                    key + ".cron",
                    "and every are " + quoted(rule.getCron()) + " and " + quoted(rule.getEvery())
                            + ": give one, cron for wall-clock times in a zone or every for a fixed interval");
        } else {
            checkBounds(key, rule, problems);
            checkSchedule(key, keys, problems);
        }
    }

    /** {@code end} and {@code count}, which the rule turns into header values of its own. */
    private static void checkBounds(String key, RuleFactory rule, SettingsCheck.Problems problems) {
        if (rule.getEnd() != null) {
            try {
                DelayText.parseDelayMillis(rule.getEnd());
            } catch (IllegalArgumentException e) {
                problems.add(
                        key + ".end",
                        "is " + quoted(rule.getEnd()) + ": give how long after the source record the series may run,"
                                + " e.g. 7d or PT12H (" + e.getMessage() + ")");
            }
        }
        if (rule.getCount() != null && rule.getCount() < 1) {
            problems.add(key + ".count", "is " + rule.getCount() + ": give 1 or more, or leave count out for no limit");
        }
    }

    /** {@code cron}, {@code zone}, {@code every} and {@code missed}, read as headers by the intake's series parser. */
    private static void checkSchedule(String key, Map<String, Object> keys, SettingsCheck.Problems problems) {
        RecordHeaders headers = new RecordHeaders();
        headers.add(DelayHeaders.ID, utf8("rule-check"));
        for (String name : HEADER_KEYS) {
            if (keys.get(name) != null) {
                headers.add("delay-" + name, utf8((String) keys.get(name)));
            }
        }
        try {
            SeriesHeaders.parse(headers, REFERENCE);
        } catch (ContractViolation v) {
            String name = switch (v.code()) {
                case MISSING_ZONE, INVALID_ZONE, ZONE_WITH_INTERVAL -> "zone";
                case INVALID_INTERVAL -> "every";
                case INVALID_MISSED -> "missed";
                default -> "cron";
            };
            problems.add(key + "." + name, "is " + quoted(keys.get(name)) + ": " + inRuleTerms(v.getMessage()));
        }
    }

    /** The series parser's message with the rule's keys for its headers: {@code delay-zone} is {@code zone}. */
    private static String inRuleTerms(String message) {
        String text = message;
        for (String name : HEADER_KEYS) {
            text = text.replace("delay-" + name + ": ", "").replace("delay-" + name, name);
        }
        return text;
    }

    /** The rule's series; null for a rule without cron or every. Call only when {@link #check} found nothing. */
    static RuleSeries build(RuleFactory rule) {
        if (rule.getCron() == null && rule.getEvery() == null) {
            return null;
        }
        Long end = rule.getEnd() == null ? null : DelayText.parseDelayMillis(rule.getEnd());
        String zone = rule.getZone() == null ? null : rule.getZone().strip();
        String missed = rule.getMissed() == null ? null : rule.getMissed().strip();
        return new RuleSeries(rule.getCron(), zone, rule.getEvery(), end, rule.getCount(), missed);
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}

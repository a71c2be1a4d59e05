package io.delaybridge.bridge.config;

import io.delaybridge.bridge.rules.IdTemplate;
import io.delaybridge.schemas.DelayText;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * What is wrong with one delay rule ({@link RuleFactory}) on its own, each problem naming the key, the value and the
 * fix; the series keys are {@link RuleSeriesCheck}'s, the checks across rules {@link RulesFactory}'s.
 */
final class RuleCheck {

    private static final Pattern NAME = Pattern.compile("[a-zA-Z0-9._-]{1,100}");
    private static final Pattern TOPIC = Pattern.compile("[a-zA-Z0-9._-]{1,249}");

    private RuleCheck() {}

    /** Adds what is wrong with this rule alone; {@code key} is how messages name it, e.g. {@code order-timeout}. */
    static void check(String key, RuleFactory rule, SettingsCheck.Problems problems) {
        String name = rule.getName();
        String source = rule.getSource();
        String sourcePattern = rule.getSourcePattern();
        if (name == null || !NAME.matcher(name).matches()) {
            problems.add(
                    key + ".name",
                    "is " + quoted(name) + ": give each rule a name of 1 to 100 characters"
                            + " a-z A-Z 0-9 . _ -, e.g. order-timeout");
        }
        if ((source == null) == (sourcePattern == null)) {
            problems.add(
                    key + ".source",
                    "and sourcePattern are " + quoted(source) + " and " + quoted(sourcePattern)
                            + ": give exactly one, the topic the rule reads (source: orders.created) or a pattern"
                            + " (sourcePattern: \"orders\\\\..*\")");
        }
        if (source != null && !TOPIC.matcher(source).matches()) {
            problems.add(
                    key + ".source",
                    "is " + quoted(source) + ": use a legal Kafka topic name (1 to 249 of the"
                            + " characters a-z A-Z 0-9 . _ -), or sourcePattern for a regular expression");
        }
        if (sourcePattern != null) {
            try {
                Pattern.compile(sourcePattern);
            } catch (PatternSyntaxException e) {
                problems.add(
                        key + ".sourcePattern",
                        "is " + quoted(sourcePattern) + ", which is not a Java regular"
                                + " expression (" + e.getDescription() + " near index " + e.getIndex() + "): write a"
                                + " full-match pattern such as orders\\\\..* (a dot is \\\\. in YAML double quotes)");
            }
        }
        if (rule.getCancel() != null) {
            checkCancel(key, rule, problems);
        } else {
            checkSchedule(key, rule, problems);
        }
    }

    private static void checkCancel(String key, RuleFactory rule, SettingsCheck.Problems problems) {
        String cancel = rule.getCancel();
        List<String> extra = new ArrayList<>();
        addIf(extra, rule.getTarget(), "target");
        addIf(extra, rule.getDelay(), "delay");
        addIf(extra, rule.getDelayHeader(), "delayHeader");
        addIf(extra, rule.getDelayField(), "delayField");
        addIf(extra, rule.getDelayFallback(), "delayFallback");
        addIf(extra, rule.getPartition(), "partition");
        addIf(extra, rule.getId(), "id");
        addIf(extra, rule.getCron(), "cron");
        addIf(extra, rule.getZone(), "zone");
        addIf(extra, rule.getEvery(), "every");
        addIf(extra, rule.getEnd(), "end");
        addIf(extra, rule.getCount(), "count");
        addIf(extra, rule.getMissed(), "missed");
        if (!extra.isEmpty()) {
            problems.add(
                    key + ".cancel",
                    "is set together with " + extra + ": a rule either cancels or schedules;" + " make two rules");
        }
        IdTemplate t = template(key + ".cancel", cancel, problems);
        if (t != null && t.usesOffset()) {
            problems.add(
                    key + ".cancel",
                    "is " + quoted(cancel) + ", which uses {offset}: the offset of the record"
                            + " that cancels never names a message scheduled from another record, so it can never match."
                            + " Cancel by the key or a field, e.g. order-timeout:{key}, and schedule with the same id");
        }
    }

    private static void checkSchedule(String key, RuleFactory rule, SettingsCheck.Problems problems) {
        String target = rule.getTarget();
        if (target == null || target.isBlank()) {
            problems.add(
                    key + ".target",
                    "is missing: give the topic to deliver to (target: orders.timeout), or"
                            + " cancel: <id template> for a rule that cancels");
        }
        checkDelaySource(key, rule, problems);
        checkDelayValues(key, rule, problems);
        RuleSeriesCheck.check(key, rule, problems);
        if (rule.getPartition() != null && rule.getPartition() < 0) {
            problems.add(
                    key + ".partition",
                    "is " + rule.getPartition() + ": use 0 or more, or leave it out to partition on" + " the key");
        }
        if (rule.getId() != null) {
            template(key + ".id", rule.getId(), problems);
        }
    }

    /** Where the delay comes from: one of delay, delayHeader, delayField (or none, for a series); no fixed fallback. */
    private static void checkDelaySource(String key, RuleFactory rule, SettingsCheck.Problems problems) {
        String delay = rule.getDelay();
        String delayHeader = rule.getDelayHeader();
        String delayField = rule.getDelayField();
        int delays = (delay == null ? 0 : 1) + (delayHeader == null ? 0 : 1) + (delayField == null ? 0 : 1);
        boolean series = rule.getCron() != null || rule.getEvery() != null;
        if (delays > 1 || (delays == 0 && !series)) {
            problems.add(
                    key + ".delay",
                    "delay, delayHeader and delayField are " + quoted(delay) + ", "
                            + quoted(delayHeader) + ", " + quoted(delayField) + ": give exactly one (delay: 30m, or"
                            + " delayHeader: x-timeout, or delayField: timeout)"
                            + (series ? ", or none for a series that starts with its source record" : ""));
        }
        if (delay != null && rule.getDelayFallback() != null) {
            problems.add(
                    key + ".delayFallback",
                    "is " + quoted(rule.getDelayFallback()) + " with the fixed delay " + quoted(delay)
                            + ": a fallback is for delayHeader or delayField; remove it");
        }
    }

    private static void checkDelayValues(String key, RuleFactory rule, SettingsCheck.Problems problems) {
        parseDelay(key + ".delay", rule.getDelay(), problems);
        parseDelay(key + ".delayFallback", rule.getDelayFallback(), problems);
        String delayHeader = rule.getDelayHeader();
        if (delayHeader != null && delayHeader.isBlank()) {
            problems.add(key + ".delayHeader", "is blank: name the header that holds the delay");
        }
        String delayField = rule.getDelayField();
        if (delayField != null
                && (delayField.isBlank()
                        || delayField.startsWith(".")
                        || delayField.endsWith(".")
                        || delayField.contains(".."))) {
            problems.add(
                    key + ".delayField",
                    "is " + quoted(delayField) + ": name a field of the JSON value, dotted"
                            + " for nested objects (timeout, payment.timeout)");
        }
    }

    private static void parseDelay(String key, String text, SettingsCheck.Problems problems) {
        if (text == null) {
            return;
        }
        try {
            DelayText.parseDelayMillis(text);
        } catch (IllegalArgumentException e) {
            problems.add(key, e.getMessage());
        }
    }

    private static IdTemplate template(String key, String text, SettingsCheck.Problems problems) {
        try {
            return IdTemplate.parse(text);
        } catch (IllegalArgumentException e) {
            problems.add(key, e.getMessage());
            return null;
        }
    }

    private static void addIf(List<String> names, Object value, String name) {
        if (value != null) {
            names.add(name);
        }
    }

    static String quoted(Object value) {
        return value == null ? "missing" : "\"" + value + "\"";
    }
}

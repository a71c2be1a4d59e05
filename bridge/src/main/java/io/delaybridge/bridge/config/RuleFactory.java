package io.delaybridge.bridge.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.delaybridge.bridge.rules.IdTemplate;
import io.delaybridge.bridge.rules.Rule;
import io.delaybridge.bridge.rules.RuleDelay;
import io.delaybridge.schemas.DelayText;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * One delay rule, an entry of the {@code rules:} list. A rule either schedules or cancels.
 * Settings of one rule (docs/configuration.md).
 */
public class RuleFactory {

    private static final Pattern NAME = Pattern.compile("[a-zA-Z0-9._-]{1,100}");
    private static final Pattern TOPIC = Pattern.compile("[a-zA-Z0-9._-]{1,249}");

    @Setting(
            value = "Unique; 1-100 of `a-z A-Z 0-9 . _ -`. Names the health check `rule-<name>`, the meters "
                    + "`delay.rules.<name>.*` and the `x-delay-rule` header.",
            defaultMeans = "required")
    private String name;

    @Setting(
            value = "The topic the rule reads (must exist when the rules start).",
            defaultMeans = "one of `source` / `sourcePattern`")
    private String source;

    @Setting(
            "A Java regular expression; the rule reads every topic it matches in full, including topics created later.")
    private String sourcePattern;

    @Setting(
            value = "The topic the record is delivered to; checked against `intake.allowedTargets` at start-up.",
            defaultMeans = "required to schedule")
    private String target;

    @Setting(
            value = "A fixed delay in the grammar of `delay-ms`: `1500`, `30s`, `5m`, `PT30M`.",
            defaultMeans = "one of `delay` / `delayHeader` / `delayField` to schedule")
    private String delay;

    @Setting("The header of the source record holding the delay, same grammar.")
    private String delayHeader;

    @Setting("The JSON field of the value holding the delay, dotted for nested objects; a JSON number is "
            + "milliseconds, a string uses the grammar of `delay-ms`.")
    private String delayField;

    @Setting(
            value = "The delay of a record without the header or field; without it such a record is deadlettered "
                    + "(`MISSING_DELAY`).",
            defaultMeans = "none")
    private String delayFallback;

    @Setting(
            value = "The target partition (`delay-partition`); otherwise the target's partitioner on the key.",
            defaultMeans = "none")
    private Integer partition;

    @Setting(
            value = "The message id, a template over the source record: `{key}`, `{topic}`, `{partition}`, "
                    + "`{offset}`, `{rule}`, `{header:NAME}`, `{field:PATH}`.",
            defaultMeans = "`{rule}:{topic}-{partition}-{offset}`")
    private String id;

    @Setting(
            value = "Instead of scheduling: the template of the id to cancel, e.g. `order-timeout:{key}`.",
            defaultMeans = "none")
    private String cancel;

    @Setting("A cancel rule for ids that producers schedule themselves: skips the check that some rule's id can match.")
    private boolean external;

    /** Adds what is wrong with this rule alone; {@code key} is how messages name it, e.g. {@code order-timeout}. */
    void check(String key, SettingsCheck.Problems problems) {
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
        if (cancel != null) {
            checkCancel(key, problems);
        } else {
            checkSchedule(key, problems);
        }
    }

    private void checkCancel(String key, SettingsCheck.Problems problems) {
        List<String> extra = new ArrayList<>();
        addIf(extra, target, "target");
        addIf(extra, delay, "delay");
        addIf(extra, delayHeader, "delayHeader");
        addIf(extra, delayField, "delayField");
        addIf(extra, delayFallback, "delayFallback");
        addIf(extra, partition, "partition");
        addIf(extra, id, "id");
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

    private void checkSchedule(String key, SettingsCheck.Problems problems) {
        if (target == null || target.isBlank()) {
            problems.add(
                    key + ".target",
                    "is missing: give the topic to deliver to (target: orders.timeout), or"
                            + " cancel: <id template> for a rule that cancels");
        }
        int delays = (delay == null ? 0 : 1) + (delayHeader == null ? 0 : 1) + (delayField == null ? 0 : 1);
        if (delays != 1) {
            problems.add(
                    key + ".delay",
                    "delay, delayHeader and delayField are " + quoted(delay) + ", "
                            + quoted(delayHeader) + ", " + quoted(delayField) + ": give exactly one (delay: 30m, or"
                            + " delayHeader: x-timeout, or delayField: timeout)");
        }
        if (delay != null && delayFallback != null) {
            problems.add(
                    key + ".delayFallback",
                    "is " + quoted(delayFallback) + " with the fixed delay " + quoted(delay)
                            + ": a fallback is for delayHeader or delayField; remove it");
        }
        parseDelay(key + ".delay", delay, problems);
        parseDelay(key + ".delayFallback", delayFallback, problems);
        if (delayHeader != null && delayHeader.isBlank()) {
            problems.add(key + ".delayHeader", "is blank: name the header that holds the delay");
        }
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
        if (partition != null && partition < 0) {
            problems.add(
                    key + ".partition",
                    "is " + partition + ": use 0 or more, or leave it out to partition on" + " the key");
        }
        if (id != null) {
            template(key + ".id", id, problems);
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

    /** The rule; call only when {@link #check} found nothing. */
    Rule build() {
        List<String> topics = source == null ? List.of() : List.of(source);
        Pattern pattern = sourcePattern == null ? null : Pattern.compile(sourcePattern);
        if (cancel != null) {
            return Rule.cancel(name, topics, pattern, IdTemplate.parse(cancel));
        }
        Long fallback = delayFallback == null ? null : DelayText.parseDelayMillis(delayFallback);
        RuleDelay when = delay != null
                ? new RuleDelay.Fixed(DelayText.parseDelayMillis(delay))
                : delayHeader != null
                        ? new RuleDelay.FromHeader(delayHeader, fallback)
                        : new RuleDelay.FromField(delayField, fallback);
        return Rule.schedule(
                name,
                topics,
                pattern,
                target.strip(),
                when,
                partition,
                IdTemplate.parse(id == null ? IdTemplate.DEFAULT : id));
    }

    @JsonProperty
    public String getName() {
        return name;
    }

    @JsonProperty
    public void setName(String name) {
        this.name = name;
    }

    @JsonProperty
    public String getSource() {
        return source;
    }

    @JsonProperty
    public void setSource(String source) {
        this.source = source;
    }

    @JsonProperty
    public String getSourcePattern() {
        return sourcePattern;
    }

    @JsonProperty
    public void setSourcePattern(String sourcePattern) {
        this.sourcePattern = sourcePattern;
    }

    @JsonProperty
    public String getTarget() {
        return target;
    }

    @JsonProperty
    public void setTarget(String target) {
        this.target = target;
    }

    @JsonProperty
    public String getDelay() {
        return delay;
    }

    @JsonProperty
    public void setDelay(String delay) {
        this.delay = delay;
    }

    @JsonProperty
    public String getDelayHeader() {
        return delayHeader;
    }

    @JsonProperty
    public void setDelayHeader(String delayHeader) {
        this.delayHeader = delayHeader;
    }

    @JsonProperty
    public String getDelayField() {
        return delayField;
    }

    @JsonProperty
    public void setDelayField(String delayField) {
        this.delayField = delayField;
    }

    @JsonProperty
    public String getDelayFallback() {
        return delayFallback;
    }

    @JsonProperty
    public void setDelayFallback(String delayFallback) {
        this.delayFallback = delayFallback;
    }

    @JsonProperty
    public Integer getPartition() {
        return partition;
    }

    @JsonProperty
    public void setPartition(Integer partition) {
        this.partition = partition;
    }

    @JsonProperty
    public String getId() {
        return id;
    }

    @JsonProperty
    public void setId(String id) {
        this.id = id;
    }

    @JsonProperty
    public String getCancel() {
        return cancel;
    }

    @JsonProperty
    public void setCancel(String cancel) {
        this.cancel = cancel;
    }

    @JsonProperty
    public boolean isExternal() {
        return external;
    }

    @JsonProperty
    public void setExternal(boolean external) {
        this.external = external;
    }
}

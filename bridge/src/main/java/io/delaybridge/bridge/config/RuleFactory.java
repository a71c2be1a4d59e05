package io.delaybridge.bridge.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.delaybridge.bridge.rules.IdTemplate;
import io.delaybridge.bridge.rules.Rule;
import io.delaybridge.bridge.rules.RuleDelay;
import io.delaybridge.schemas.DelayText;
import java.util.List;
import java.util.regex.Pattern;

/**
 * One delay rule, an entry of the {@code rules:} list. A rule either schedules or cancels.
 * Settings of one rule (docs/configuration.md).
 */
public class RuleFactory {

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
            defaultMeans =
                    "one of `delay` / `delayHeader` / `delayField` to schedule; for a series, optional: its start")
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

    @Setting(
            value = "Makes the rule start a series (docs/recurring-schedules.md): a cron expression of five fields, or "
                    + "six with seconds first, read in `zone`, e.g. `0 9 * * *`. The delay, if given, is the series' "
                    + "start after the source record.",
            defaultMeans = "none: one record per source record")
    private String cron;

    @Setting(value = "The IANA zone of `cron`, e.g. `Europe/Berlin`, `UTC`.", defaultMeans = "required with `cron`")
    private String zone;

    @Setting(
            value = "Makes the rule start a series of fixed intervals, at least `1s`, in the grammar of `delay-ms`: "
                    + "`30m`, `1d`. The first occurrence is one interval after the source record, or at the delay.",
            defaultMeans = "none")
    private String every;

    @Setting(
            value = "No occurrence of the rule's series later than this after the source record: `7d`, `PT12H`.",
            defaultMeans = "none: the series runs until cancelled")
    private String end;

    @Setting(value = "At most this many occurrences of the rule's series.", defaultMeans = "no limit")
    private Long count;

    @Setting(
            value = "What the rule's series does with occurrences that passed while nothing could deliver them: "
                    + "`one`, `all` or `skip` (`delay-missed`).",
            defaultMeans = "`one`")
    private String missed;

    /** Adds what is wrong with this rule alone ({@link RuleCheck}); {@code key} is how messages name it. */
    void check(String key, SettingsCheck.Problems problems) {
        RuleCheck.check(key, this, problems);
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
                        : delayField != null ? new RuleDelay.FromField(delayField, fallback) : null;
        return new Rule(
                name,
                topics,
                pattern,
                target.strip(),
                when,
                partition,
                IdTemplate.parse(id == null ? IdTemplate.DEFAULT : id),
                null,
                RuleSeriesCheck.build(this));
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
    public String getCron() {
        return cron;
    }

    @JsonProperty
    public void setCron(String cron) {
        this.cron = cron;
    }

    @JsonProperty
    public String getZone() {
        return zone;
    }

    @JsonProperty
    public void setZone(String zone) {
        this.zone = zone;
    }

    @JsonProperty
    public String getEvery() {
        return every;
    }

    @JsonProperty
    public void setEvery(String every) {
        this.every = every;
    }

    @JsonProperty
    public String getEnd() {
        return end;
    }

    @JsonProperty
    public void setEnd(String end) {
        this.end = end;
    }

    @JsonProperty
    public Long getCount() {
        return count;
    }

    @JsonProperty
    public void setCount(Long count) {
        this.count = count;
    }

    @JsonProperty
    public String getMissed() {
        return missed;
    }

    @JsonProperty
    public void setMissed(String missed) {
        this.missed = missed;
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

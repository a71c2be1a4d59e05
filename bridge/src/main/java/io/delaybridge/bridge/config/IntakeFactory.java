package io.delaybridge.bridge.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.delaybridge.bridge.intake.ExpressLimits;
import io.delaybridge.bridge.intake.FarLimits;
import io.delaybridge.bridge.intake.FarPolicy;
import io.delaybridge.bridge.intake.IntakePacing;
import io.delaybridge.bridge.intake.IntakeSettings;
import io.delaybridge.bridge.intake.RecordRules;
import io.dropwizard.util.DataSize;
import io.dropwizard.util.Duration;
import jakarta.validation.constraints.NotNull;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.PatternSyntaxException;

/** What the intake accepts: settings under {@code intake:} (docs/configuration.md). */
@SettingsCheck
public class IntakeFactory implements SettingsCheck.Checked {

    @NotNull
    @Setting(value = "Longer delays are refused with `DELAY_TOO_LONG`.", min = "1s")
    private Duration maxDelay = Duration.days(365);

    @NotNull
    @Setting(
            value = "Larger records (key + value + headers) are refused with `PAYLOAD_TOO_LARGE`.",
            min = "1 byte",
            max = "64MiB",
            why = "every pending record sits in Redis memory")
    private DataSize maxRecordSize = DataSize.mebibytes(1);

    @NotNull
    @Setting(
            value = "Regular expressions; a target must match one fully, else `TARGET_FORBIDDEN`.",
            defaultMeans = "any target")
    private List<String> allowedTargets = new ArrayList<>();

    @NotNull
    @Setting(value = "How long one poll of the intake waits for records.", min = "1ms", max = "10s")
    private Duration pollTimeout = Duration.milliseconds(100);

    @NotNull
    @Setting(
            value = "How long the offsets of stored records may wait for their commit, so that one commit covers "
                    + "many polls; `0ms` commits every poll at once.",
            min = "0ms",
            max = "10s",
            why = "a crash reads that much of the intake again")
    private Duration commitInterval = Duration.milliseconds(100);

    @NotNull
    @Setting(
            value = "How long (in record time) a cancel is remembered, so that an older schedule of the same id "
                    + "read after it is dropped.",
            min = "0ms")
    private Duration cancelMemory = Duration.hours(1);

    @NotNull
    @Setting(value = "The first wait after Redis or Kafka refused a batch; doubles.", min = "1ms")
    private Duration retryBackoff = Duration.milliseconds(100);

    @NotNull
    @Setting(
            value = "The longest wait between tries of a batch.",
            max = "60s",
            why = "the consumer must poll within max.poll.interval.ms")
    private Duration maxRetryBackoff = Duration.seconds(30);

    @NotNull
    @Setting("Records with their default id due at most this long after Redis' clock when read take the express "
            + "path: delivered straight from the intake, never written to Redis; `off` parks every record.")
    private String expressWindow = "250ms";

    @Setting(
            value = "Express records held in memory at once, at most; a record that finds the buffer full is "
                    + "written to Redis instead.",
            min = "1",
            max = "1000000",
            why = "they are held in memory")
    private int expressBufferRecords = 50_000;

    @NotNull
    @Setting(
            value = "The same bound in bytes (envelope plus about 300 bytes a record).",
            min = "1KiB",
            max = "256MiB",
            why = "they are held in the heap")
    private DataSize expressBufferBytes = DataSize.mebibytes(32);

    @NotNull
    @Setting("Records due more than this after now when read wait in the far tier: their payload stays in the intake "
            + "topic's log, Redis keeps a 12-byte entry, and they are stored in Redis ahead of their due time; `0ms` "
            + "sends every record not yet due far (as the intake's retention allows); `off` stores every record in "
            + "Redis.")
    private String hotWindow = "1h";

    @NotNull
    @Setting(
            value = "A record waits far only if the intake topic's retention keeps it until its due time plus this.",
            min = "0ms")
    private Duration farRetentionMargin = Duration.hours(1);

    @NotNull
    @Setting(
            value = "How often the intake topic's retention settings are read again, to turn the far tier off or on.",
            min = "1s",
            max = "1h",
            why = "a retention changed on the broker is seen this late")
    private Duration retentionCheckInterval = Duration.minutes(5);

    @Setting(
            value = "Far records thawed a second, at most, while their due hour has not begun (an hour that has begun, "
                    + "or a backlog, thaws at full speed); `0`: always at full speed.",
            min = "0",
            why = "at full speed the thaw takes Redis from the records being delivered now")
    private int thawAheadRate = 5_000;

    /** The hot window in ms, {@link FarPolicy#OFF} if off; throws if it does not parse. */
    private long hotWindowMillis() {
        String window = hotWindow.trim();
        // YAML reads a bare off (also DELAY_HOT_WINDOW=off, substituted unquoted) as the boolean false
        if (window.equalsIgnoreCase("off") || window.equalsIgnoreCase("false")) {
            return FarPolicy.OFF;
        }
        if (window.startsWith("-")) {
            throw new IllegalArgumentException("negative");
        }
        return Duration.parse(window).toMilliseconds();
    }

    /** The express window in ms, {@link IntakeSettings#EXPRESS_OFF} if off; throws if it does not parse. */
    private long expressWindowMillis() {
        String window = expressWindow.trim();
        // YAML reads a bare off (also DELAY_EXPRESS_WINDOW=off, substituted unquoted) as the boolean false
        if (window.equalsIgnoreCase("off") || window.equalsIgnoreCase("false") || window.startsWith("-")) {
            return IntakeSettings.EXPRESS_OFF;
        }
        long millis = Duration.parse(window).toMilliseconds();
        if (millis > 60_000) {
            throw new IllegalArgumentException("longer than 1 minute");
        }
        return millis;
    }

    @Override
    public void check(SettingsCheck.Problems problems) {
        if (expressWindow != null) {
            try {
                expressWindowMillis();
            } catch (IllegalArgumentException e) {
                problems.add(
                        "expressWindow",
                        "is \"" + expressWindow + "\", which is not a duration of 0 to 1 minute"
                                + " or off: write e.g. 250ms, or off to write every record to Redis");
            }
        }
        if (hotWindow != null) {
            try {
                hotWindowMillis();
            } catch (IllegalArgumentException e) {
                problems.add(
                        "hotWindow",
                        "is \"" + hotWindow + "\", which is not a duration of 0ms or more nor off: write e.g. 10m,"
                                + " or off to store every record in Redis");
            }
        }
        for (String pattern : allowedTargets) {
            try {
                java.util.regex.Pattern.compile(pattern);
            } catch (PatternSyntaxException e) {
                problems.add(
                        "allowedTargets",
                        "holds \"" + pattern + "\", which is not a regular expression (" + e.getDescription()
                                + "): write full-match patterns such as orders\\..*");
            }
        }
        if (maxRetryBackoff != null
                && retryBackoff != null
                && maxRetryBackoff.toMilliseconds() < retryBackoff.toMilliseconds()) {
            problems.add(
                    "maxRetryBackoff",
                    "is " + maxRetryBackoff + ", shorter than intake.retryBackoff (" + retryBackoff
                            + "), which it caps: raise intake.maxRetryBackoff or lower intake.retryBackoff");
        }
    }

    public IntakeSettings build(String topic, String deadletterTopic) {
        return new IntakeSettings(
                new RecordRules(
                        topic,
                        deadletterTopic,
                        maxDelay.toMilliseconds(),
                        (int) maxRecordSize.toBytes(),
                        List.copyOf(allowedTargets),
                        cancelMemory.toMilliseconds()),
                new IntakePacing(
                        pollTimeout.toJavaDuration(),
                        commitInterval.toJavaDuration(),
                        retryBackoff.toJavaDuration(),
                        maxRetryBackoff.toJavaDuration()),
                new ExpressLimits(expressWindowMillis(), expressBufferRecords, expressBufferBytes.toBytes()),
                new FarLimits(
                        hotWindowMillis(),
                        farRetentionMargin.toMilliseconds(),
                        retentionCheckInterval.toJavaDuration()));
    }

    @JsonProperty
    public String getHotWindow() {
        return hotWindow;
    }

    @JsonProperty
    public void setHotWindow(String hotWindow) {
        this.hotWindow = hotWindow;
    }

    @JsonProperty
    public Duration getFarRetentionMargin() {
        return farRetentionMargin;
    }

    @JsonProperty
    public void setFarRetentionMargin(Duration farRetentionMargin) {
        this.farRetentionMargin = farRetentionMargin;
    }

    @JsonProperty
    public Duration getRetentionCheckInterval() {
        return retentionCheckInterval;
    }

    @JsonProperty
    public int getThawAheadRate() {
        return thawAheadRate;
    }

    @JsonProperty
    public void setThawAheadRate(int thawAheadRate) {
        this.thawAheadRate = thawAheadRate;
    }

    @JsonProperty
    public void setRetentionCheckInterval(Duration retentionCheckInterval) {
        this.retentionCheckInterval = retentionCheckInterval;
    }

    @JsonProperty
    public String getExpressWindow() {
        return expressWindow;
    }

    @JsonProperty
    public void setExpressWindow(String expressWindow) {
        this.expressWindow = expressWindow;
    }

    @JsonProperty
    public int getExpressBufferRecords() {
        return expressBufferRecords;
    }

    @JsonProperty
    public void setExpressBufferRecords(int expressBufferRecords) {
        this.expressBufferRecords = expressBufferRecords;
    }

    @JsonProperty
    public DataSize getExpressBufferBytes() {
        return expressBufferBytes;
    }

    @JsonProperty
    public void setExpressBufferBytes(DataSize expressBufferBytes) {
        this.expressBufferBytes = expressBufferBytes;
    }

    @JsonProperty
    public Duration getMaxDelay() {
        return maxDelay;
    }

    @JsonProperty
    public void setMaxDelay(Duration maxDelay) {
        this.maxDelay = maxDelay;
    }

    @JsonProperty
    public DataSize getMaxRecordSize() {
        return maxRecordSize;
    }

    @JsonProperty
    public void setMaxRecordSize(DataSize maxRecordSize) {
        this.maxRecordSize = maxRecordSize;
    }

    @JsonProperty
    public List<String> getAllowedTargets() {
        return allowedTargets;
    }

    @JsonProperty
    public void setAllowedTargets(List<String> allowedTargets) {
        this.allowedTargets = allowedTargets;
    }

    @JsonProperty
    public Duration getPollTimeout() {
        return pollTimeout;
    }

    @JsonProperty
    public void setPollTimeout(Duration pollTimeout) {
        this.pollTimeout = pollTimeout;
    }

    @JsonProperty
    public Duration getCommitInterval() {
        return commitInterval;
    }

    @JsonProperty
    public void setCommitInterval(Duration commitInterval) {
        this.commitInterval = commitInterval;
    }

    @JsonProperty
    public Duration getCancelMemory() {
        return cancelMemory;
    }

    @JsonProperty
    public void setCancelMemory(Duration cancelMemory) {
        this.cancelMemory = cancelMemory;
    }

    @JsonProperty
    public Duration getRetryBackoff() {
        return retryBackoff;
    }

    @JsonProperty
    public void setRetryBackoff(Duration retryBackoff) {
        this.retryBackoff = retryBackoff;
    }

    @JsonProperty
    public Duration getMaxRetryBackoff() {
        return maxRetryBackoff;
    }

    @JsonProperty
    public void setMaxRetryBackoff(Duration maxRetryBackoff) {
        this.maxRetryBackoff = maxRetryBackoff;
    }
}

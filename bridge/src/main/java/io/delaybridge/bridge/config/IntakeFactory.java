package io.delaybridge.bridge.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.delaybridge.bridge.intake.IntakeSettings;
import io.dropwizard.util.DataSize;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MaxDataSize;
import io.dropwizard.validation.MaxDuration;
import io.dropwizard.validation.MinDataSize;
import io.dropwizard.validation.MinDuration;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.PatternSyntaxException;

/**
 * What the intake accepts.
 *
 * <table>
 *   <caption>Settings under {@code intake:}</caption>
 *   <tr><th>name</th><th>default</th><th>description</th></tr>
 *   <tr><td>maxDelay</td><td>365 days</td><td>longer delays are refused with DELAY_TOO_LONG</td></tr>
 *   <tr><td>maxRecordSize</td><td>1 MiB</td><td>larger records (key + value + headers) are refused with
 *       PAYLOAD_TOO_LARGE: they would sit in Redis memory</td></tr>
 *   <tr><td>allowedTargets</td><td>[] (any)</td><td>regular expressions; a target must match one fully, else
 *       TARGET_FORBIDDEN. Topics starting with {@code _}, the intake and the deadletter topic are always
 *       refused</td></tr>
 *   <tr><td>pollTimeout</td><td>100ms</td><td>how long one poll of the intake waits for records</td></tr>
 *   <tr><td>commitInterval</td><td>100ms</td><td>how long the offsets of stored records may wait for their commit,
 *       to commit many polls at once; a poll holding a record due within this plus 250 ms, or a refused record, commits
 *       at once. 0 commits every poll at once</td></tr>
 *   <tr><td>cancelMemory</td><td>1 hour</td><td>how long a cancel is remembered (in record time): a schedule of
 *       the same id from an older record, read later (another partition lagged, or a re-read after a crash), is
 *       dropped. Costs about 100 bytes of Redis memory per cancel</td></tr>
 *   <tr><td>retryBackoff</td><td>100ms</td><td>first wait after Redis refused a batch; doubles</td></tr>
 *   <tr><td>maxRetryBackoff</td><td>30s</td><td>longest wait between tries of a batch</td></tr>
 *   <tr><td>expressWindow</td><td>250ms</td><td>records (with their default id) due at most this long after Redis'
 *       clock when read are delivered from the intake, never written to Redis (the express path); {@code off} (or a
 *       negative value) parks every record in Redis</td></tr>
 *   <tr><td>expressBufferRecords</td><td>50000</td><td>express records held in memory at once, at most; more
 *       park</td></tr>
 *   <tr><td>expressBufferBytes</td><td>32MiB</td><td>bytes of express records held in memory at once, at
 *       most</td></tr>
 * </table>
 */
@SettingsCheck
public class IntakeFactory implements SettingsCheck.Checked {

    @NotNull
    @MinDuration(value = 1, unit = TimeUnit.SECONDS, message = "is ${validatedValue}: use at least 1 second, e.g. 365 days")
    private Duration maxDelay = Duration.days(365);

    @NotNull
    @MinDataSize(value = 1, message = "is ${validatedValue}: use 1 byte to 64MiB, e.g. 1MiB")
    @MaxDataSize(value = 64, unit = io.dropwizard.util.DataSizeUnit.MEBIBYTES,
            message = "is ${validatedValue}: use 1 byte to 64MiB, e.g. 1MiB (every pending record sits in Redis memory)")
    private DataSize maxRecordSize = DataSize.mebibytes(1);

    @NotNull
    private List<String> allowedTargets = new ArrayList<>();

    @NotNull
    @MinDuration(value = 1, unit = TimeUnit.MILLISECONDS, message = "is ${validatedValue}: use 1ms to 10s, e.g. 100ms")
    @MaxDuration(value = 10, unit = TimeUnit.SECONDS, message = "is ${validatedValue}: use 1ms to 10s, e.g. 100ms")
    private Duration pollTimeout = Duration.milliseconds(100);

    @NotNull
    @MinDuration(value = 0, unit = TimeUnit.MILLISECONDS, message = "is ${validatedValue}: use 0ms to 10s, e.g. 100ms")
    @MaxDuration(value = 10, unit = TimeUnit.SECONDS,
            message = "is ${validatedValue}: use 0ms to 10s, e.g. 100ms (a crash reads that much of the intake again)")
    private Duration commitInterval = Duration.milliseconds(100);

    @NotNull
    @MinDuration(value = 0, unit = TimeUnit.MILLISECONDS, message = "is ${validatedValue}: use 0 or more, e.g. 1 hour")
    private Duration cancelMemory = Duration.hours(1);

    @NotNull
    @MinDuration(value = 1, unit = TimeUnit.MILLISECONDS, message = "is ${validatedValue}: use at least 1ms, e.g. 100ms")
    private Duration retryBackoff = Duration.milliseconds(100);

    @NotNull
    @MaxDuration(value = 60, unit = TimeUnit.SECONDS,
            message = "is ${validatedValue}: use at most 60s (the consumer must poll within max.poll.interval.ms)")
    private Duration maxRetryBackoff = Duration.seconds(30);

    @NotNull
    private String expressWindow = "250ms";

    @Min(value = 1, message = "is ${validatedValue}: use 1 to 1000000, e.g. 10000")
    @Max(value = 1_000_000, message = "is ${validatedValue}: use 1 to 1000000, e.g. 10000 (they are held in memory)")
    private int expressBufferRecords = 50_000;

    @NotNull
    @MinDataSize(value = 1, unit = io.dropwizard.util.DataSizeUnit.KIBIBYTES,
            message = "is ${validatedValue}: use 1KiB to 256MiB, e.g. 32MiB")
    @MaxDataSize(value = 256, unit = io.dropwizard.util.DataSizeUnit.MEBIBYTES,
            message = "is ${validatedValue}: use 1KiB to 256MiB, e.g. 32MiB (they are held in the heap)")
    private DataSize expressBufferBytes = DataSize.mebibytes(32);

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
                problems.add("expressWindow", "is \"" + expressWindow + "\", which is not a duration of 0 to 1 minute"
                        + " or off: write e.g. 250ms, or off to write every record to Redis");
            }
        }
        for (String pattern : allowedTargets) {
            try {
                java.util.regex.Pattern.compile(pattern);
            } catch (PatternSyntaxException e) {
                problems.add("allowedTargets", "holds \"" + pattern + "\", which is not a regular expression ("
                        + e.getDescription() + "): write full-match patterns such as orders\\..*");
            }
        }
        if (maxRetryBackoff != null && retryBackoff != null
                && maxRetryBackoff.toMilliseconds() < retryBackoff.toMilliseconds()) {
            problems.add("maxRetryBackoff", "is " + maxRetryBackoff + ", shorter than intake.retryBackoff ("
                    + retryBackoff + "), which it caps: raise intake.maxRetryBackoff or lower intake.retryBackoff");
        }
    }

    public IntakeSettings build(String topic, String deadletterTopic) {
        return new IntakeSettings(
                topic,
                deadletterTopic,
                maxDelay.toMilliseconds(),
                (int) maxRecordSize.toBytes(),
                List.copyOf(allowedTargets),
                pollTimeout.toJavaDuration(),
                commitInterval.toJavaDuration(),
                retryBackoff.toJavaDuration(),
                maxRetryBackoff.toJavaDuration(),
                cancelMemory.toMilliseconds(),
                expressWindowMillis(),
                expressBufferRecords,
                expressBufferBytes.toBytes());
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

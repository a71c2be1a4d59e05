package io.delaybridge.bridge.config;

import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.delaybridge.bridge.delivery.MissingTopics;
import io.delaybridge.bridge.delivery.TargetRates;
import io.delaybridge.bridge.pump.ExponentialBackoff;
import io.delaybridge.bridge.pump.PumpSettings;
import io.delaybridge.bridge.pump.RetryPolicy;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MaxDuration;
import io.dropwizard.validation.MinDuration;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;

/**
 * How due messages are released and retried.
 *
 * <table>
 *   <caption>Settings under {@code pump:}</caption>
 *   <tr><th>name</th><th>default</th><th>description</th></tr>
 *   <tr><td>batchSize</td><td>500</td><td>the most messages one claim takes from a shard</td></tr>
 *   <tr><td>lease</td><td>30s</td><td>a claimed message not acknowledged within it is delivered again by the
 *       shard's owner: longer than a send can take, short enough to recover from a crash quickly</td></tr>
 *   <tr><td>maxInFlight</td><td>10000</td><td>messages sent and not yet acknowledged, at most</td></tr>
 *   <tr><td>maxAttempts</td><td>10</td><td>delivery attempts before the deadletter topic</td></tr>
 *   <tr><td>retryBackoff</td><td>1s</td><td>wait before the second attempt; doubles each time</td></tr>
 *   <tr><td>maxRetryBackoff</td><td>5m</td><td>longest wait between attempts</td></tr>
 *   <tr><td>revokeDrain</td><td>10s</td><td>how long a shard leaving this instance waits for its in-flight
 *       sends</td></tr>
 *   <tr><td>lookAhead</td><td>100ms</td><td>claims also take messages due this much later and the pump sends each
 *       at its due time, so the claim's round trip is not part of the lateness; claim rounds come at most every half
 *       look-ahead, so a longer one means fewer, larger claims; 0 claims only what is due. A cancel or replacement
 *       that reaches Redis less than this before the due time may not stop the old version</td></tr>
 *   <tr><td>missingTopics</td><td>broker</td><td>a target topic that does not exist: {@code broker} follows the
 *       broker's auto.create.topics.enable (the first delivery creates it where the broker creates topics on first
 *       use), {@code create} always sends, {@code deadletter} never creates one</td></tr>
 *   <tr><td>missingTopicWait</td><td>5s</td><td>where a missing target is not created, how long its message waits for
 *       it before the deadletter topic (DELIVERY_FAILED, "does not exist")</td></tr>
 *   <tr><td>rateLimits</td><td>none</td><td>delivery rate caps, records per second per target topic and bridge
 *       instance: {@code default} for all, {@code targets} per topic ({@link RateLimitsFactory})</td></tr>
 * </table>
 */
@SettingsCheck
public class PumpFactory implements SettingsCheck.Checked {

    @Min(value = 1, message = "is ${validatedValue}: use 1 to 10000, e.g. 500")
    @Max(value = 10_000, message = "is ${validatedValue}: use 1 to 10000, e.g. 500")
    private int batchSize = 500;

    @NotNull
    @MinDuration(value = 1, unit = TimeUnit.SECONDS,
            message = "is ${validatedValue}: use at least 1s, longer than a send can take (default 30s)")
    private Duration lease = Duration.seconds(30);

    @Min(value = 1, message = "is ${validatedValue}: use 1 to 1000000, e.g. 10000")
    @Max(value = 1_000_000, message = "is ${validatedValue}: use 1 to 1000000, e.g. 10000")
    private int maxInFlight = 10_000;

    @Min(value = 1, message = "is ${validatedValue}: use 1 to 1000 attempts, e.g. 10")
    @Max(value = 1_000, message = "is ${validatedValue}: use 1 to 1000 attempts, e.g. 10")
    private int maxAttempts = 10;

    @NotNull
    private Duration retryBackoff = Duration.seconds(1);

    @NotNull
    private Duration maxRetryBackoff = Duration.minutes(5);

    @NotNull
    private Duration revokeDrain = Duration.seconds(10);

    @NotNull
    @MaxDuration(value = 1, unit = TimeUnit.SECONDS,
            message = "is ${validatedValue}: use 0ms to 1s, a little more than a claim takes (default 20ms)")
    private Duration lookAhead = Duration.milliseconds(100);

    @NotNull
    private MissingTopics.Mode missingTopics = MissingTopics.Mode.BROKER;

    @NotNull
    @MaxDuration(value = 10, unit = TimeUnit.MINUTES,
            message = "is ${validatedValue}: use 0s to 10m, e.g. 5s (0s deadletters at the first attempt)")
    private Duration missingTopicWait = Duration.seconds(5);

    @NotNull
    private RateLimitsFactory rateLimits = new RateLimitsFactory();

    @Override
    public void check(SettingsCheck.Problems problems) {
        if (maxRetryBackoff.toMilliseconds() < retryBackoff.toMilliseconds()) {
            problems.add("maxRetryBackoff", "is " + maxRetryBackoff + ", shorter than pump.retryBackoff ("
                    + retryBackoff + "), which it caps: raise pump.maxRetryBackoff or lower pump.retryBackoff");
        }
        if (lookAhead.toMilliseconds() * 2 > lease.toMilliseconds()) {
            problems.add("lookAhead", "is " + lookAhead + ", more than half of pump.lease (" + lease + "): a message "
                    + "held until its due time could outlive its lease. Lower pump.lookAhead or raise pump.lease");
        }
        rateLimits.check("rateLimits", problems);
        if (maxInFlight < batchSize) {
            problems.add("maxInFlight", "is " + maxInFlight + ", below pump.batchSize (" + batchSize + "): a claim "
                    + "takes up to batchSize messages into flight. Raise pump.maxInFlight or lower pump.batchSize");
        }
    }

    public PumpSettings build() {
        return new PumpSettings(batchSize, lease.toMilliseconds(), maxInFlight, revokeDrain.toMilliseconds(),
                lookAhead.toMilliseconds());
    }

    /** What a delivery to a missing target topic does; asks the broker through {@code admin} if so configured. */
    public MissingTopics missingTopics(Admin admin, long lookupTimeoutMillis) {
        return new MissingTopics(admin, missingTopics, missingTopicWait.toMilliseconds(), lookupTimeoutMillis);
    }

    /** The delivery rate caps per target, with their meters in {@code metrics}. */
    public TargetRates rates(MetricRegistry metrics) {
        return rateLimits.build(metrics);
    }

    public RetryPolicy retryPolicy() {
        return new ExponentialBackoff(maxAttempts, retryBackoff.toMilliseconds(), maxRetryBackoff.toMilliseconds());
    }

    @JsonProperty
    public int getBatchSize() {
        return batchSize;
    }

    @JsonProperty
    public void setBatchSize(int batchSize) {
        this.batchSize = batchSize;
    }

    @JsonProperty
    public Duration getLease() {
        return lease;
    }

    @JsonProperty
    public void setLease(Duration lease) {
        this.lease = lease;
    }

    @JsonProperty
    public int getMaxInFlight() {
        return maxInFlight;
    }

    @JsonProperty
    public void setMaxInFlight(int maxInFlight) {
        this.maxInFlight = maxInFlight;
    }

    @JsonProperty
    public int getMaxAttempts() {
        return maxAttempts;
    }

    @JsonProperty
    public void setMaxAttempts(int maxAttempts) {
        this.maxAttempts = maxAttempts;
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

    @JsonProperty
    public Duration getRevokeDrain() {
        return revokeDrain;
    }

    @JsonProperty
    public void setRevokeDrain(Duration revokeDrain) {
        this.revokeDrain = revokeDrain;
    }

    @JsonProperty
    public Duration getLookAhead() {
        return lookAhead;
    }

    @JsonProperty
    public void setLookAhead(Duration lookAhead) {
        this.lookAhead = lookAhead;
    }

    @JsonProperty
    public MissingTopics.Mode getMissingTopics() {
        return missingTopics;
    }

    @JsonProperty
    public void setMissingTopics(MissingTopics.Mode missingTopics) {
        this.missingTopics = missingTopics;
    }

    @JsonProperty
    public Duration getMissingTopicWait() {
        return missingTopicWait;
    }

    @JsonProperty
    public void setMissingTopicWait(Duration missingTopicWait) {
        this.missingTopicWait = missingTopicWait;
    }

    @JsonProperty
    public RateLimitsFactory getRateLimits() {
        return rateLimits;
    }

    @JsonProperty
    public void setRateLimits(RateLimitsFactory rateLimits) {
        this.rateLimits = rateLimits;
    }
}

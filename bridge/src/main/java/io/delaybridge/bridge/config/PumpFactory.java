package io.delaybridge.bridge.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.delaybridge.bridge.pump.ExponentialBackoff;
import io.delaybridge.bridge.pump.PumpSettings;
import io.delaybridge.bridge.pump.RetryPolicy;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MinDuration;
import io.dropwizard.validation.ValidationMethod;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.util.concurrent.TimeUnit;

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
 * </table>
 */
public class PumpFactory {

    @Min(1)
    @Max(10_000)
    private int batchSize = 500;

    @NotNull
    @MinDuration(value = 1, unit = TimeUnit.SECONDS)
    private Duration lease = Duration.seconds(30);

    @Min(1)
    @Max(1_000_000)
    private int maxInFlight = 10_000;

    @Min(1)
    @Max(1_000)
    private int maxAttempts = 10;

    @NotNull
    private Duration retryBackoff = Duration.seconds(1);

    @NotNull
    private Duration maxRetryBackoff = Duration.minutes(5);

    @NotNull
    private Duration revokeDrain = Duration.seconds(10);

    @ValidationMethod(message = "must not be shorter than pump.retryBackoff: pump.maxRetryBackoff caps the doubling "
            + "backoff. Raise pump.maxRetryBackoff or lower pump.retryBackoff")
    public boolean isMaxRetryBackoffAboveRetryBackoff() {
        return maxRetryBackoff.toMilliseconds() >= retryBackoff.toMilliseconds();
    }

    @ValidationMethod(message = "must be at least pump.batchSize: pump.maxInFlight bounds the messages in flight, "
            + "and a claim takes up to batchSize. Raise pump.maxInFlight or lower pump.batchSize")
    public boolean isMaxInFlightAboveBatchSize() {
        return maxInFlight >= batchSize;
    }

    public PumpSettings build() {
        return new PumpSettings(batchSize, lease.toMilliseconds(), maxInFlight, revokeDrain.toMilliseconds());
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
}

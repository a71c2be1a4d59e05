package io.delaybridge.bridge.config;

import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.delaybridge.bridge.delivery.MissingTopics;
import io.delaybridge.bridge.delivery.TargetRates;
import io.delaybridge.bridge.pump.ExponentialBackoff;
import io.delaybridge.bridge.pump.PumpSettings;
import io.delaybridge.bridge.pump.RetryPolicy;
import io.delaybridge.bridge.store.SharedRates;
import io.delaybridge.bridge.time.Time;
import io.dropwizard.util.Duration;
import jakarta.validation.constraints.NotNull;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;

/** How due messages are released and retried: settings under {@code pump:} (docs/configuration.md). */
@SettingsCheck
public class PumpFactory implements SettingsCheck.Checked {

    static final int MAX_WEIGHT = 1000;

    @Setting(value = "The most messages one claim takes from a shard.", min = "1", max = "10000")
    private int batchSize = 500;

    @NotNull
    @Setting(
            value = "A claimed message not acknowledged within it is delivered again by the shard's owner.",
            min = "1s",
            why = "longer than a send can take")
    private Duration lease = Duration.seconds(30);

    @Setting(
            value = "Messages sent and not yet acknowledged, at most; at the limit the pump stops claiming.",
            min = "1",
            max = "1000000")
    private int maxInFlight = 10_000;

    @Setting(value = "Delivery attempts before the deadletter topic (`DELIVERY_FAILED`).", min = "1", max = "1000")
    private int maxAttempts = 10;

    @NotNull
    @Setting("The wait before the second attempt; doubles each attempt.")
    private Duration retryBackoff = Duration.seconds(1);

    @NotNull
    @Setting("The longest wait between attempts.")
    private Duration maxRetryBackoff = Duration.minutes(5);

    @NotNull
    @Setting("How long a shard leaving this instance (rebalance, stop) waits for its in-flight sends.")
    private Duration revokeDrain = Duration.seconds(10);

    @NotNull
    @Setting(
            value = "Claims also take messages due this much later and send each at its due time, so the claim's "
                    + "round trip is not part of the lateness; `0ms` claims only what is due.",
            min = "0ms",
            max = "1s",
            why = "a little more than a claim takes")
    private Duration lookAhead = Duration.milliseconds(100);

    @NotNull
    @Setting("What a delivery to a target topic that does not exist does: `broker` (as the broker's "
            + "`auto.create.topics.enable`), `create` or `deadletter`.")
    private MissingTopics.Mode missingTopics = MissingTopics.Mode.BROKER;

    @NotNull
    @Setting(
            value = "Where a missing target is not created: how long its message waits for it before the "
                    + "deadletter topic.",
            min = "0s",
            max = "10m",
            why = "0s deadletters at the first attempt")
    private Duration missingTopicWait = Duration.seconds(5);

    @NotNull
    private RateLimitsFactory rateLimits = new RateLimitsFactory();

    @Setting("Claim shares of target topics with messages due at once: weight 3 (of 1 to 1000) gets three times the "
            + "share of weight 1, the default.")
    private Map<String, Integer> weights = new LinkedHashMap<>();

    @Override
    public void check(SettingsCheck.Problems problems) {
        if (maxRetryBackoff.toMilliseconds() < retryBackoff.toMilliseconds()) {
            problems.add(
                    "maxRetryBackoff",
                    "is " + maxRetryBackoff + ", shorter than pump.retryBackoff (" + retryBackoff
                            + "), which it caps: raise pump.maxRetryBackoff or lower pump.retryBackoff");
        }
        if (lookAhead.toMilliseconds() * 2 > lease.toMilliseconds()) {
            problems.add(
                    "lookAhead",
                    "is " + lookAhead + ", more than half of pump.lease (" + lease + "): a message "
                            + "held until its due time could outlive its lease. Lower pump.lookAhead or raise pump.lease");
        }
        rateLimits.check("rateLimits", problems);
        if (weights == null) {
            problems.add("weights", "is empty (null): write {} or a map of topic: weight, e.g. {orders.timeout: 3}");
        } else {
            weights.forEach((topic, weight) -> {
                if (topic == null || !RateLimitsFactory.TOPIC.matcher(topic).matches()) {
                    problems.add(
                            "weights",
                            "names \"" + topic + "\", which is not a legal Kafka topic name (1 to 249 of a-z A-Z "
                                    + "0-9 . _ -): write the target topic as it is, e.g. orders.timeout: 3");
                } else if (weight == null || weight < 1 || weight > MAX_WEIGHT) {
                    problems.add(
                            "weights." + topic,
                            "is " + (weight == null ? "empty" : weight) + ": use a whole number from 1 to " + MAX_WEIGHT
                                    + " (1: an equal share), e.g. " + topic + ": 3");
                }
            });
        }
        if (maxInFlight < batchSize) {
            problems.add(
                    "maxInFlight",
                    "is " + maxInFlight + ", below pump.batchSize (" + batchSize + "): a claim "
                            + "takes up to batchSize messages into flight. Raise pump.maxInFlight or lower pump.batchSize");
        }
    }

    public PumpSettings build() {
        return new PumpSettings(
                batchSize,
                lease.toMilliseconds(),
                maxInFlight,
                revokeDrain.toMilliseconds(),
                lookAhead.toMilliseconds());
    }

    /** What a delivery to a missing target topic does; asks the broker through {@code admin} if so configured. */
    public MissingTopics missingTopics(Admin admin, long lookupTimeoutMillis, Time time) {
        return new MissingTopics(admin, missingTopics, missingTopicWait.toMilliseconds(), lookupTimeoutMillis, time);
    }

    /**
     * The delivery rate caps per target, with their meters in {@code metrics}; a cap for the service takes its tokens
     * from {@code shared}.
     */
    public TargetRates rates(MetricRegistry metrics, SharedRates shared) {
        return rateLimits.build(metrics, shared);
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
    public Map<String, Integer> getWeights() {
        return weights;
    }

    @JsonProperty
    public void setWeights(Map<String, Integer> weights) {
        this.weights = weights;
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

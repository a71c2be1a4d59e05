package io.delaybridge.bridge.config;

import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.delaybridge.bridge.delivery.Bucket;
import io.delaybridge.bridge.delivery.SharedBucket;
import io.delaybridge.bridge.delivery.TargetRates;
import io.delaybridge.bridge.delivery.TokenBucket;
import io.delaybridge.bridge.store.SharedRates;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Delivery rate caps per target topic, so that draining a backlog (after an outage, or a bulk of messages due at one
 * time) does not flood a consumer: settings under {@code pump.rateLimits:} (docs/configuration.md). Records per
 * second, for the whole service ({@code scope: service}: every instance takes its tokens from one state in Redis) or
 * per bridge instance ({@code scope: instance}: with N instances a target receives up to N times its cap). Messages
 * are released oldest due first; a held-back message keeps its due time ({@code delay-due-at}), and lateness is
 * measured from it.
 */
public class RateLimitsFactory {

    /** {@code scope: service}: one cap for all instances together. */
    static final String SERVICE = "service";
    /** {@code scope: instance}: each instance its own cap. */
    static final String INSTANCE = "instance";

    /** The highest cap: above it a cap would not be one (a bridge delivers some 10^5 records per second). */
    static final double MAX = 1_000_000;

    static final Pattern TOPIC = Pattern.compile("[a-zA-Z0-9._-]{1,249}");

    @Setting(
            name = "default",
            value = "Records per second for every target topic without an entry in `targets`; "
                    + "`0`: no cap. A decimal is allowed (`0.5`: one every 2 s).")
    private double defaultLimit;

    @Setting("Records per second per target topic; `0` exempts a topic from `default`.")
    private Map<String, Double> targets = new LinkedHashMap<>();

    @Setting("Whom a cap holds for: `service` (all instances together, through a token bucket in Redis) or "
            + "`instance` (each instance its own: N instances deliver up to N times a cap, no Redis calls).")
    private String scope = SERVICE;

    /** Adds a problem, under {@code prefix}, for each cap that is wrong. */
    void check(String prefix, SettingsCheck.Problems problems) {
        if (!SERVICE.equals(scopeName()) && !INSTANCE.equals(scopeName())) {
            problems.add(
                    prefix + ".scope",
                    "is " + (scope == null ? "empty" : "\"" + scope + "\"") + ": use service (a cap holds for all "
                            + "instances together) or instance (each instance its own cap)");
        }
        if (!valid(defaultLimit)) {
            problems.add(
                    prefix + ".default",
                    "is " + show(defaultLimit) + ": use records per second per target " + "topic, 0 to " + (long) MAX
                            + " (0: no cap), e.g. 500, or set DELAY_RATE_LIMIT");
        }
        if (targets == null) {
            problems.add(
                    prefix + ".targets",
                    "is empty (null): write {} or a map of topic: records per second, " + "e.g. {orders.timeout: 500}");
            return;
        }
        targets.forEach((topic, cap) -> {
            if (topic == null || !TOPIC.matcher(topic).matches()) {
                problems.add(
                        prefix + ".targets",
                        "names \"" + topic + "\", which is not a legal Kafka topic name "
                                + "(1 to 249 of a-z A-Z 0-9 . _ -): write the target topic as it is, e.g. orders.timeout: 500");
            } else if (cap == null || !valid(cap)) {
                problems.add(
                        prefix + ".targets." + topic,
                        "is " + (cap == null ? "empty" : show(cap)) + ": use "
                                + "records per second, 0 to " + (long) MAX + " (0 exempts " + topic
                                + " from the default), "
                                + "e.g. " + topic + ": 500");
            }
        });
    }

    private static boolean valid(double cap) {
        return cap >= 0 && cap <= MAX && !Double.isNaN(cap);
    }

    private static String show(double cap) {
        return cap == Math.rint(cap) && !Double.isInfinite(cap) ? Long.toString((long) cap) : Double.toString(cap);
    }

    /**
     * The caps, with per-target meters registered in {@code metrics}; with {@code scope: service} their tokens come
     * from {@code shared}, in batches ({@link SharedBucket}).
     */
    public TargetRates build(MetricRegistry metrics, SharedRates shared) {
        return new TargetRates(defaultLimit, targets, buckets(shared), metrics);
    }

    private String scopeName() {
        return scope == null ? null : scope.trim().toLowerCase(Locale.ROOT);
    }

    private Bucket.Factory buckets(SharedRates shared) {
        if (INSTANCE.equals(scopeName())) {
            return TokenBucket.PER_INSTANCE;
        }
        return (target, perSecond) -> {
            int burst = SharedBucket.batchFor(perSecond);
            return new SharedBucket(
                    target,
                    perSecond,
                    want -> shared.take(target, perSecond, burst, want)
                            .thenApply(g -> new SharedBucket.Tokens(g.granted(), g.waitMicros() * 1_000)));
        };
    }

    @JsonProperty("default")
    public double getDefault() {
        return defaultLimit;
    }

    @JsonProperty("default")
    public void setDefault(double defaultLimit) {
        this.defaultLimit = defaultLimit;
    }

    @JsonProperty
    public String getScope() {
        return scope;
    }

    @JsonProperty
    public void setScope(String scope) {
        this.scope = scope;
    }

    @JsonProperty
    public Map<String, Double> getTargets() {
        return targets;
    }

    @JsonProperty
    public void setTargets(Map<String, Double> targets) {
        this.targets = targets;
    }
}

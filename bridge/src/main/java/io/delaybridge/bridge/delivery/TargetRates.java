package io.delaybridge.bridge.delivery;

import com.codahale.metrics.Histogram;
import com.codahale.metrics.LockFreeExponentiallyDecayingReservoir;
import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Snapshot;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The delivery rate caps per target topic ({@code pump.rateLimits}) and what is measured per target: delivered,
 * lateness, held back for the cap.
 *
 * <p>A cap is records per second to one target topic; a topic without an entry of its own takes the default; 0 is no
 * cap. Whether it holds for the service or per instance is up to the {@link Bucket.Factory} that makes each capped
 * target's bucket: a {@link SharedBucket} takes its tokens from one state every instance shares, a
 * {@link TokenBucket} ({@link TokenBucket#PER_INSTANCE}) keeps its own, so N instances deliver up to N times the cap.
 *
 * <p>One map lookup per message ({@link #target}) gives everything the pump needs of a target: its cap and bucket
 * (none for an uncapped one) and its meters. Meters are kept for at most {@link #MAX_TRACKED} targets, so the
 * metric names stay bounded; later targets share the meters of {@link #OTHERS} (their caps still hold). The map of
 * targets holds one small entry per target topic delivered to (bounded by the topics of the cluster).
 */
public final class TargetRates {

    /** Targets with meters of their own, at most. */
    public static final int MAX_TRACKED = 100;
    /** The name under which targets past {@link #MAX_TRACKED} are measured together. */
    public static final String OTHERS = "_others";
    /** Per-target metric names: {@code delay.target.<what>.<topic>}. */
    public static final String PREFIX = "delay.target.";

    /** What the pump needs of one target topic. */
    public static final class Target {
        private final String topic;
        private final double cap;
        private final Meters meters;
        /** Null when uncapped. */
        private final Bucket bucket;
        /** Messages held in memory for a token now. */
        public final AtomicInteger waiting = new AtomicInteger();

        private Target(String topic, double cap, Meters meters, Bucket.Factory buckets) {
            this.topic = topic;
            this.cap = cap;
            this.meters = meters;
            this.bucket = cap > 0 ? buckets.forTarget(topic, cap) : null;
        }

        public String topic() {
            return topic;
        }

        public boolean capped() {
            return bucket != null;
        }

        /** Records per second, 0 if uncapped. */
        public double cap() {
            return cap;
        }

        /** The bucket of a capped target; null for an uncapped one. Use it under one lock (the throttle's). */
        public Bucket bucket() {
            return bucket;
        }

        public void delivered(long latenessMillis) {
            meters.delivered.mark();
            meters.lateness.update(latenessMillis);
        }

        /** A message waited in memory for a token. */
        public void heldBack() {
            meters.heldBack.mark();
        }

        /** A claimed message went back to Redis, at its due time, to wait for the cap there. */
        public void handedBack(int count) {
            meters.handedBack.mark(count);
        }
    }

    private record Meters(Meter delivered, Histogram lateness, Meter heldBack, Meter handedBack) {
        static Meters register(MetricRegistry registry, String name) {
            return new Meters(
                    registry.meter(PREFIX + "delivered." + name),
                    // lock-free: updated for every delivery, uncapped targets too
                    registry.histogram(
                            PREFIX + "lateness-ms." + name,
                            () -> new Histogram(LockFreeExponentiallyDecayingReservoir.builder()
                                    .build())),
                    registry.meter(PREFIX + "held-back." + name),
                    registry.meter(PREFIX + "handed-back." + name));
        }
    }

    private final double defaultCap;
    private final Map<String, Double> caps;
    private final MetricRegistry registry;
    private final Bucket.Factory buckets;
    private final Map<String, Target> targets = new ConcurrentHashMap<>();
    private final Map<String, Meters> tracked = new ConcurrentHashMap<>();

    /**
     * {@code defaultCap}: records per second for a target without a cap of its own, 0 for none; {@code caps}: per
     * target topic, 0 exempts a topic from the default; {@code buckets} makes a capped target's bucket when the target
     * is first seen.
     */
    public TargetRates(double defaultCap, Map<String, Double> caps, Bucket.Factory buckets, MetricRegistry registry) {
        this.defaultCap = defaultCap;
        this.caps = Map.copyOf(caps);
        this.buckets = buckets;
        this.registry = registry;
    }

    /** Whether any target can be capped at all. */
    public boolean anyCap() {
        return defaultCap > 0 || caps.values().stream().anyMatch(c -> c > 0);
    }

    /** Whether deliveries to {@code topic} are capped. */
    public boolean capped(String topic) {
        return capOf(topic) > 0;
    }

    /** Records per second for {@code topic}; 0 if uncapped. */
    public double capOf(String topic) {
        return caps.getOrDefault(topic, defaultCap);
    }

    /** The target topic's cap, bucket and meters: one map lookup. */
    public Target target(String topic) {
        Target target = targets.get(topic);
        return target != null
                ? target
                : targets.computeIfAbsent(topic, t -> new Target(t, capOf(t), meters(t), buckets));
    }

    private Meters meters(String topic) {
        Meters own = tracked.get(topic);
        if (own != null) {
            return own;
        }
        synchronized (tracked) {
            String name = tracked.size() < MAX_TRACKED || tracked.containsKey(topic) ? topic : OTHERS;
            return tracked.computeIfAbsent(name, n -> Meters.register(registry, n));
        }
    }

    /**
     * One row per target seen (and per capped target not seen yet): target, cap, delivered (count, per second over a
     * minute), lateness in ms (p50, p99, max; recent, weighted to the last five minutes), waiting now and held back.
     */
    public List<Map<String, Object>> rows() {
        Map<String, Map<String, Object>> rows = new java.util.TreeMap<>();
        for (Map.Entry<String, Meters> e : tracked.entrySet()) {
            Meters m = e.getValue();
            Snapshot s = m.lateness.getSnapshot();
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("target", e.getKey());
            row.put("cap", e.getKey().equals(OTHERS) ? defaultCap : capOf(e.getKey()));
            row.put("delivered", m.delivered.getCount());
            row.put("deliveredPerSecond", m.delivered.getOneMinuteRate());
            row.put("latenessP50", s.getMedian());
            row.put("latenessP99", s.get99thPercentile());
            row.put("latenessMax", s.getMax());
            row.put("waiting", 0);
            row.put("heldBack", m.heldBack.getCount());
            row.put("handedBack", m.handedBack.getCount());
            rows.put(e.getKey(), row);
        }
        for (Target t : targets.values()) {
            Map<String, Object> row = rows.get(tracked.containsKey(t.topic) ? t.topic : OTHERS);
            if (row != null) {
                row.put("waiting", (Integer) row.get("waiting") + t.waiting.get());
            }
        }
        for (Map.Entry<String, Double> cap : caps.entrySet()) {
            if (!rows.containsKey(cap.getKey())) {
                Map<String, Object> row = new LinkedHashMap<>();
                row.put("target", cap.getKey());
                row.put("cap", cap.getValue());
                rows.put(cap.getKey(), row);
            }
        }
        return new ArrayList<>(rows.values());
    }

    /** The default cap, records per second (0: none). */
    public double defaultCap() {
        return defaultCap;
    }
}

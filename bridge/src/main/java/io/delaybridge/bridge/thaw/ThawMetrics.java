package io.delaybridge.bridge.thaw;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import io.delaybridge.bridge.log.FetchPlan;
import io.delaybridge.bridge.store.FarEntry;
import io.delaybridge.bridge.time.RedisClock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the thaw reports: records stored hot ({@value #THAWED}), records found gone from the intake's log
 * ({@value #LOST}, with an ERROR and the {@code far-tier} health check), and how far behind it is
 * ({@value #BEHIND}: how long ago the oldest hour still far began, 0 while every hour is thawed before it begins).
 */
public final class ThawMetrics {

    public static final String THAWED = "delay.far.thawed";
    public static final String LOST = "delay.far.lost";
    public static final String BEHIND = "delay.far.thaw-behind-ms";

    private static final Logger LOG = LoggerFactory.getLogger(ThawMetrics.class);

    final Meter thawed;
    private final Meter lostMeter;
    private final LostOffsets lost = new LostOffsets();

    /** Per shard thawed here: the start (Redis epoch ms) of its oldest hour that began and is still far. */
    private final Map<Integer, Long> oldestStart = new ConcurrentHashMap<>();
    /** Redis' clock, as the pump and the intake know it: how far behind the thaw is. */
    private final RedisClock redisClock;

    public ThawMetrics(MetricRegistry registry, RedisClock redisClock) {
        this.redisClock = redisClock;
        this.thawed = registry.meter(THAWED);
        this.lostMeter = registry.meter(LOST);
        registry.gauge(BEHIND, () -> (Gauge<Long>) this::behindMillis);
    }

    /** Records of {@code shard}'s far hour {@code hour} whose offsets the intake's log no longer holds. */
    void lost(int shard, long hour, Map<Integer, List<Long>> offsets) {
        offsets.forEach((partition, gone) -> {
            int added = lost.add(partition, gone);
            if (added > 0) {
                lostMeter.mark(added);
                LOG.error(
                        "{} far records of shard {} (due in the hour from {}) are gone from intake partition {}, offsets"
                                + " {}: deleted by retention or an operator before they were thawed; they will not be"
                                + " delivered",
                        gone.size(),
                        shard,
                        Instant.ofEpochMilli(hour * FarEntry.HOUR_MILLIS),
                        partition,
                        FetchPlan.ranges(gone, 20));
            }
        });
    }

    /** The oldest hour of {@code shard} still far and begun starts at {@code start}; MAX_VALUE: none. */
    void oldest(int shard, long start) {
        oldestStart.put(shard, start);
    }

    /** Only {@code shards} are thawed here now. */
    void retain(Set<Integer> shards) {
        oldestStart.keySet().retainAll(shards);
    }

    /** {@code shard} is no longer thawed here. */
    void forget(int shard) {
        oldestStart.remove(shard);
    }

    /** How long ago the oldest hour still far began (ms), by Redis' clock; 0 when none has. */
    long behindMillis() {
        long now = redisClock.now();
        long behind = 0;
        for (long start : oldestStart.values()) {
            behind = Math.max(behind, start == Long.MAX_VALUE ? 0 : now - start);
        }
        return behind;
    }

    boolean anyLost() {
        return !lost.isEmpty();
    }

    List<String> lostOffsets() {
        return lost.describe();
    }
}

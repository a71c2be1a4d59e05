package io.delaybridge.bridge.pump;

import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import io.delaybridge.bridge.delivery.TargetRates;
import io.delaybridge.schemas.SeriesRecord;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the occurrences of series came to, per series and per target topic, counted when a turn is settled: delivered,
 * missed (found past after an outage) and skipped (dropped by the missed-run policy or a daylight-saving gap), as
 * {@link SeriesRecord.Turn} defines them.
 *
 * <pre>
 * delay.series.delivered.&lt;series id&gt;          delay.target.series-delivered.&lt;topic&gt;
 * delay.series.missed.&lt;series id&gt;             delay.target.series-missed.&lt;topic&gt;
 * delay.series.skipped.&lt;series id&gt;            delay.target.series-skipped.&lt;topic&gt;
 * </pre>
 *
 * The names stay bounded as the per-target ones of {@link TargetRates} do: the first {@link #MAX_TRACKED_SERIES} series
 * this instance settles get meters of their own, later ones share those of {@link #OTHERS}; per target, the first
 * {@link TargetRates#MAX_TRACKED} topics, then {@link TargetRates#OTHERS}. Each instance counts the series of the shards
 * it owns; the service's figure is the sum over instances.
 */
public final class SeriesMeters {

    /** Per-series metric names: {@code delay.series.<what>.<id>}. */
    public static final String PREFIX = "delay.series.";
    /** Per-target series metric names: {@code delay.target.series-<what>.<topic>}. */
    public static final String TARGET_PREFIX = TargetRates.PREFIX + "series-";
    /** Series with meters of their own, at most. */
    public static final int MAX_TRACKED_SERIES = 100;
    /** The name under which series past {@link #MAX_TRACKED_SERIES} are counted together. */
    public static final String OTHERS = "_others";

    private record Counts(Meter delivered, Meter missed, Meter skipped) {
        static Counts register(MetricRegistry registry, String prefix, String name) {
            return new Counts(
                    registry.meter(prefix + "delivered." + name),
                    registry.meter(prefix + "missed." + name),
                    registry.meter(prefix + "skipped." + name));
        }

        void add(SeriesRecord.Tally tally) {
            if (tally.delivered()) {
                delivered.mark();
            }
            if (tally.missed() > 0) {
                missed.mark(tally.missed());
            }
            if (tally.skipped() > 0) {
                skipped.mark(tally.skipped());
            }
        }
    }

    private final MetricRegistry registry;
    private final Tracked series = new Tracked(PREFIX, MAX_TRACKED_SERIES, OTHERS);
    private final Tracked targets = new Tracked(TARGET_PREFIX, TargetRates.MAX_TRACKED, TargetRates.OTHERS);

    public SeriesMeters(MetricRegistry registry) {
        this.registry = registry;
    }

    /**
     * Counts a settled turn.
     *
     * @param id     the series id
     * @param target the target topic of its occurrences
     * @param tally  what the turn did ({@link SeriesRecord#tally} of its envelope)
     */
    void settled(String id, String target, SeriesRecord.Tally tally) {
        series.of(id).add(tally);
        targets.of(target).add(tally);
    }

    /** Counts kept under at most {@code max} names, then under {@code others}. */
    private final class Tracked {
        private final String prefix;
        private final int max;
        private final String others;
        private final Map<String, Counts> byName = new ConcurrentHashMap<>();

        Tracked(String prefix, int max, String others) {
            this.prefix = prefix;
            this.max = max;
            this.others = others;
        }

        Counts of(String name) {
            Counts own = byName.get(name);
            if (own != null) {
                return own;
            }
            synchronized (byName) {
                String key = byName.size() < max || byName.containsKey(name) ? name : others;
                return byName.computeIfAbsent(key, n -> Counts.register(registry, prefix, n));
            }
        }
    }
}

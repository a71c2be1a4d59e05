package io.delaybridge.bridge.admin;

import com.codahale.metrics.CachedGauge;
import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import io.delaybridge.bridge.store.DelayStore;
import io.delaybridge.bridge.store.FarStore;
import io.delaybridge.bridge.store.ShardStats;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Gauges of what Redis holds: pending (hot) and in-flight messages, and records waiting in the far tier, per shard and
 * in total. Read from Redis at most once a second, however often the metrics are scraped; far records are counted
 * from the lengths of their hour strings (no intake read).
 */
public final class ShardGauges {

    private ShardGauges() {}

    /** One shard's counts: hot ones and far ones. */
    private record Counts(ShardStats hot, long far) {}

    public static void register(MetricRegistry registry, DelayStore store, FarStore far) {
        CachedGauge<List<Counts>> all = new CachedGauge<>(1, TimeUnit.SECONDS) {
            @Override
            protected List<Counts> loadValue() {
                List<Counts> counts = new ArrayList<>(store.shardCount());
                for (int shard = 0; shard < store.shardCount(); shard++) {
                    counts.add(new Counts(store.stats(shard), far.farCount(shard)));
                }
                return counts;
            }
        };
        registry.register("delay.pending", (Gauge<Long>)
                () -> all.getValue().stream().mapToLong(c -> c.hot().pending()).sum());
        registry.register("delay.in-flight", (Gauge<Long>)
                () -> all.getValue().stream().mapToLong(c -> c.hot().inFlight()).sum());
        registry.register("delay.far", (Gauge<Long>)
                () -> all.getValue().stream().mapToLong(Counts::far).sum());
        for (int shard = 0; shard < store.shardCount(); shard++) {
            int index = shard;
            registry.register("delay.pending.shard-" + shard, (Gauge<Long>)
                    () -> all.getValue().get(index).hot().pending());
            registry.register("delay.in-flight.shard-" + shard, (Gauge<Long>)
                    () -> all.getValue().get(index).hot().inFlight());
            registry.register("delay.far.shard-" + shard, (Gauge<Long>)
                    () -> all.getValue().get(index).far());
        }
    }
}

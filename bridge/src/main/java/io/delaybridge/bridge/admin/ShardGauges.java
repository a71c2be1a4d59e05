package io.delaybridge.bridge.admin;

import com.codahale.metrics.CachedGauge;
import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import io.delaybridge.bridge.store.DelayStore;
import io.delaybridge.bridge.store.ShardStats;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Gauges of what Redis holds: pending and in-flight messages per shard and in total. Read from Redis at most once a
 * second, however often the metrics are scraped.
 */
public final class ShardGauges {

    private ShardGauges() {}

    public static void register(MetricRegistry registry, DelayStore store) {
        CachedGauge<List<ShardStats>> all = new CachedGauge<>(1, TimeUnit.SECONDS) {
            @Override
            protected List<ShardStats> loadValue() {
                List<ShardStats> stats = new ArrayList<>(store.shardCount());
                for (int shard = 0; shard < store.shardCount(); shard++) {
                    stats.add(store.stats(shard));
                }
                return stats;
            }
        };
        registry.register("delay.pending", (Gauge<Long>)
                () -> all.getValue().stream().mapToLong(ShardStats::pending).sum());
        registry.register("delay.in-flight", (Gauge<Long>)
                () -> all.getValue().stream().mapToLong(ShardStats::inFlight).sum());
        for (int shard = 0; shard < store.shardCount(); shard++) {
            int index = shard;
            registry.register("delay.pending.shard-" + shard, (Gauge<Long>)
                    () -> all.getValue().get(index).pending());
            registry.register("delay.in-flight.shard-" + shard, (Gauge<Long>)
                    () -> all.getValue().get(index).inFlight());
        }
    }
}

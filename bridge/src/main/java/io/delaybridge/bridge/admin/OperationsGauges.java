package io.delaybridge.bridge.admin;

import com.codahale.metrics.CachedGauge;
import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import io.delaybridge.bridge.pump.Pump;
import io.delaybridge.bridge.pump.PumpPauses;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;

/**
 * The operational gauges beside {@link ShardGauges}: how late the oldest due message is, the intake's consumer lag,
 * the pump's pause state and its own in-flight count, and the batch sizes of the producers that carry deliveries
 * (from the Kafka client's own metrics: the shared producer, or exactly once's transactional pair of the moment). Values read from Redis or Kafka are cached for a second (lag: as long as {@link GroupView} caches).
 */
public final class OperationsGauges {

    private OperationsGauges() {}

    public static void register(
            MetricRegistry registry,
            ShardReport report,
            Pump pump,
            GroupView group,
            Supplier<List<Map<MetricName, ? extends Metric>>> producerMetrics) {
        CachedGauge<Long> oldest = new CachedGauge<>(1, TimeUnit.SECONDS) {
            @Override
            protected Long loadValue() {
                return report.oldestOverdue()[0];
            }
        };
        registry.register("delay.oldest-overdue-ms", oldest);
        registry.register(
                "delay.intake.lag", (Gauge<Long>) () -> group.snapshot().totalLag());
        PumpPauses pauses = pump.pauses();
        registry.register("delay.pump.paused", (Gauge<Integer>) () -> pauses.paused() ? 1 : 0);
        registry.register("delay.pump.paused-shards", (Gauge<Integer>) () ->
                pauses.paused() ? pauses.shardCount() : pauses.pausedShards().size());
        registry.register("delay.pump.in-flight", (Gauge<Integer>) pump::inFlight);
        registry.register("delay.pump.owned-shards", (Gauge<Integer>)
                () -> pump.ownedShards().size());
        producerGauge(registry, producerMetrics, "batch-size-avg", "delay.send.batch-size-bytes-avg");
        producerGauge(registry, producerMetrics, "records-per-request-avg", "delay.send.records-per-request-avg");
    }

    /**
     * A gauge of the producer metric {@code kafkaName}: its mean over the producers that carry deliveries now, of
     * those that sent in the metric's window (the others read NaN); 0 if none did.
     */
    private static void producerGauge(
            MetricRegistry registry,
            Supplier<List<Map<MetricName, ? extends Metric>>> producers,
            String kafkaName,
            String name) {
        registry.register(name, (Gauge<Double>) () -> producers.get().stream()
                .flatMap(metrics -> metrics.entrySet().stream())
                .filter(e -> e.getKey().name().equals(kafkaName)
                        && e.getKey().group().equals("producer-metrics"))
                .map(e -> e.getValue().metricValue())
                .filter(v -> v instanceof Double d && !d.isNaN())
                .mapToDouble(v -> (Double) v)
                .average()
                .orElse(0.0));
    }
}

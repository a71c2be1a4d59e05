package io.delaybridge.bridge.pump;

import com.codahale.metrics.MetricRegistry;
import io.delaybridge.bridge.delivery.DeadletterMeters;
import io.delaybridge.bridge.delivery.TargetCatalog;
import io.delaybridge.bridge.store.DelayStore;
import java.time.Clock;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.Producer;

/** A pump wired as the application wires it, for pump ITs that bring their own store, producer and settings. */
final class TestPumps {

    private TestPumps() {}

    static Pump pump(DelayStore store, Producer<byte[], byte[]> producer, Admin admin, PumpSettings settings,
            String deadletterTopic, MetricRegistry metrics) {
        return new Pump(store, producer, new TargetCatalog(admin, Clock.systemUTC(), 60_000, 5_000, 5_000),
                new ExponentialBackoff(3, 100, 1_000), settings, deadletterTopic,
                new PumpMetrics(metrics, new DeadletterMeters(metrics)), Clock.systemUTC());
    }
}

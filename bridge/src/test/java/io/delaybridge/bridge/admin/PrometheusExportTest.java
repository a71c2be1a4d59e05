package io.delaybridge.bridge.admin;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.Histogram;
import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.UniformReservoir;
import com.codahale.metrics.health.HealthCheck;
import com.codahale.metrics.health.HealthCheckRegistry;
import io.delaybridge.bridge.time.Time;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class PrometheusExportTest {

    @Test
    void namesBecomeSnakeCaseWithBaseUnits() {
        assertEquals(
                "io.dropwizard.jetty.mutable_servlet_context_handler.2xx-responses",
                PrometheusExport.prometheusName("io.dropwizard.jetty.MutableServletContextHandler.2xx-responses"));
        assertEquals(
                "time_bound_health_check-pool.running",
                PrometheusExport.prometheusName("TimeBoundHealthCheck-pool.running"));
        assertEquals("delay.lateness-seconds", PrometheusExport.prometheusName("delay.lateness-ms"));
        assertEquals("delay.delivered", PrometheusExport.prometheusName("delay.delivered"));
    }

    @Test
    void millisecondMetricsAreReadInSeconds() {
        Histogram millis = new Histogram(new UniformReservoir());
        millis.update(1500);
        Histogram seconds = (Histogram) PrometheusExport.inSeconds("delay.lateness-ms", millis);
        assertEquals(1, seconds.getCount());
        assertEquals(1.5, seconds.getSnapshot().getMedian(), 1e-9);
        Gauge<?> gauge = (Gauge<?>) PrometheusExport.inSeconds("delay.oldest-overdue-ms", (Gauge<Long>) () -> 2500L);
        assertEquals(2.5, gauge.getValue());
        Meter meter = new Meter();
        assertSame(meter, PrometheusExport.inSeconds("delay.delivered", meter));
    }

    @Test
    void theMirrorFollowsTheRegistryAndLeavesLabelledMetricsOut() {
        MetricRegistry registry = new MetricRegistry();
        registry.meter("delay.delivered");
        MetricRegistry mirror = PrometheusExport.mirror(registry);
        registry.meter("delay.api.fire-now");
        registry.meter("delay.deadlettered.MISSING_TARGET");
        registry.register("delay.pending.shard-0", (Gauge<Long>) () -> 1L);
        registry.histogram("delay.lateness-ms");
        assertEquals(
                java.util.Set.of("delay.delivered", "delay.api.fire-now", "delay.lateness-seconds"), mirror.getNames());
        registry.remove("delay.api.fire-now");
        assertEquals(java.util.Set.of("delay.delivered", "delay.lateness-seconds"), mirror.getNames());
    }

    @Test
    void eachHealthCheckIsOneGaugeSeriesOneWhileHealthy() {
        HealthCheckRegistry health = new HealthCheckRegistry();
        health.register("redis", new HealthCheck() {
            @Override
            protected Result check() {
                return Result.healthy();
            }
        });
        health.register("redis-incarnation", new HealthCheck() {
            @Override
            protected Result check() {
                return Result.unhealthy("Redis lost its data");
            }
        });
        PrometheusRegistry registry = new PrometheusRegistry();
        HealthGauge.register(registry, health, Time.SYSTEM);
        assertEquals(Map.of("redis", 1.0, "redis-incarnation", 0.0), healthSeries(registry));
    }

    @Test
    @Timeout(30) // a scrape that ran the checks itself would hang here, not fail
    void aScrapeDoesNotWaitForAHealthCheckThatHangs() throws Exception {
        CountDownLatch kafkaAnswers = new CountDownLatch(1);
        HealthCheckRegistry health = new HealthCheckRegistry();
        health.register("kafka", new HealthCheck() {
            @Override
            protected Result check() throws Exception {
                kafkaAnswers.await(); // a broker that does not answer: the check waits out its timeout
                return Result.healthy();
            }
        });
        PrometheusRegistry registry = new PrometheusRegistry();
        HealthGauge.register(registry, health, Time.SYSTEM);
        try {
            // the check hangs until the finally below: that these scrapes return at all is the proof (a scrape that
            // waited for the check would hang, and @Timeout fail the test; one that timed it out would report it down)
            assertEquals(Map.of(), healthSeries(registry), "no check has finished yet");
            assertEquals(Map.of(), healthSeries(registry), "a later scrape reads the last results, it does not wait");
        } finally {
            kafkaAnswers.countDown();
        }
        await().atMost(Duration.ofSeconds(10))
                .until(() -> healthSeries(registry).equals(Map.of("kafka", 1.0)));
    }

    private static Map<String, Double> healthSeries(PrometheusRegistry registry) {
        Map<String, Double> byCheck = new TreeMap<>();
        registry.scrape().stream()
                .filter(m -> m.getMetadata().getName().equals("delay_health"))
                .findFirst()
                .ifPresent(m -> ((GaugeSnapshot) m)
                        .getDataPoints()
                        .forEach(p -> byCheck.put(p.getLabels().get("check"), p.getValue())));
        return byCheck;
    }
}

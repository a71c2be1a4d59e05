package io.delaybridge.bridge.admin;

import com.codahale.metrics.health.HealthCheck;
import com.codahale.metrics.health.HealthCheckRegistry;
import io.delaybridge.bridge.time.Time;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@code delay_health{check="..."}} in {@link PrometheusExport}'s registry: 1 while the check is healthy, 0 while it is
 * not, from the health checks' latest results. A scrape never runs the checks itself: with Kafka or Redis down each
 * check can take its whole timeout, and a scrape that waited for them would time out and lose every metric just when
 * they matter. A scrape that finds the results older than {@link #HEALTH_REUSE_NANOS} starts a run on a thread of its
 * own and reads what the last run found; only the very first scrape waits for the first run, for at most {@link
 * #FIRST_RUN_WAIT_MILLIS}.
 */
final class HealthGauge {

    /** How long one run of the health checks serves scrapes: several scrapers do not run the checks each. */
    private static final long HEALTH_REUSE_NANOS = TimeUnit.SECONDS.toNanos(5);

    /** How long the first scrape waits for the first run of the health checks. */
    private static final long FIRST_RUN_WAIT_MILLIS = 2_000;

    private final HealthCheckRegistry health;
    private final Time time;
    private final ExecutorService runner = Executors.newSingleThreadExecutor(task -> {
        Thread thread = new Thread(task, "delay-health-export");
        thread.setDaemon(true);
        return thread;
    });
    private volatile Map<String, HealthCheck.Result> results = Map.of();
    private CompletableFuture<Void> run;
    private long ranAt;

    private HealthGauge(HealthCheckRegistry health, Time time) {
        this.health = health;
        this.time = time;
    }

    private Map<String, HealthCheck.Result> get() {
        CompletableFuture<Void> first = null;
        synchronized (this) {
            if (run == null || (run.isDone() && time.nanoseconds() - ranAt > HEALTH_REUSE_NANOS)) {
                boolean isFirst = run == null;
                run = CompletableFuture.runAsync(this::runChecks, runner);
                first = isFirst ? run : null;
            }
        }
        if (first != null) {
            try {
                first.get(FIRST_RUN_WAIT_MILLIS, TimeUnit.MILLISECONDS);
            } catch (TimeoutException | ExecutionException e) {
                // the next scrape reads what this run finds
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return results;
    }

    private void runChecks() {
        results = health.runHealthChecks();
        synchronized (this) {
            ranAt = time.nanoseconds();
        }
    }

    /** Registers {@code delay_health} over {@code health}'s checks in {@code registry}. */
    static void register(PrometheusRegistry registry, HealthCheckRegistry health, Time time) {
        HealthGauge results = new HealthGauge(health, time);
        GaugeWithCallback.builder()
                .name("delay_health")
                .help("1 while the health check is healthy, 0 while it is not (the checks of /healthcheck)")
                .labelNames("check")
                .callback(callback ->
                        results.get().forEach((name, result) -> callback.call(result.isHealthy() ? 1 : 0, name)))
                .register(registry);
    }
}

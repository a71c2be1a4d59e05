package io.delaybridge.bridge;

import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.health.HealthCheckRegistry;
import io.delaybridge.bridge.admin.BuildInfo;
import io.delaybridge.bridge.admin.ClockSkewHealthCheck;
import io.delaybridge.bridge.admin.DeliveryHealthCheck;
import io.delaybridge.bridge.admin.IncarnationHealthCheck;
import io.delaybridge.bridge.admin.KafkaHealthCheck;
import io.delaybridge.bridge.admin.PipelineHealthCheck;
import io.delaybridge.bridge.admin.PumpLagHealthCheck;
import io.delaybridge.bridge.admin.RedisHealthCheck;
import io.delaybridge.bridge.admin.ShardReport;
import io.delaybridge.bridge.admin.api.ApiSettings;
import io.delaybridge.bridge.store.MessageAdmin;
import io.delaybridge.bridge.store.redis.RedisDelayStore;
import io.delaybridge.bridge.thaw.FarTierHealthCheck;
import io.delaybridge.bridge.time.Time;
import io.dropwizard.core.setup.Environment;
import java.time.Clock;
import org.apache.kafka.clients.admin.Admin;

/**
 * The health checks, a part of {@link AdminPart}'s wiring: the build, Kafka, Redis and its incarnation, the clock's
 * skew from Redis', the pump's lag, delivery, the pipeline's threads and the far tier.
 */
final class HealthPart {

    /** The {@code delivery} check: unhealthy when this many sends were retried and none delivered in the window. */
    private static final long DELIVERY_WINDOW_MILLIS = 60_000;

    private static final long DELIVERY_MIN_FAILURES = 10;

    private HealthPart() {}

    /** Registers the checks over {@code parts}; returns the build they report, for its gauge and the status page. */
    static BuildInfo wire(
            Environment environment,
            Admin admin,
            PipelineParts parts,
            ApiSettings api,
            ShardReport report,
            Clock clock,
            Time time) {
        HealthCheckRegistry checks = environment.healthChecks();
        MetricRegistry metrics = environment.metrics();
        RedisDelayStore store = parts.store();
        MessageAdmin messages = store.messageAdmin();
        BuildInfo build = BuildInfo.ofThisBuild(); // the version and commit: a check, a gauge, the status page
        checks.register("build", build.healthCheck());
        checks.register("kafka", new KafkaHealthCheck(admin, DelayBridgeApplication.ADMIN_CALL_MILLIS));
        checks.register("redis", new RedisHealthCheck(store, messages));
        checks.register("redis-incarnation", new IncarnationHealthCheck(messages));
        checks.register("clock-skew", new ClockSkewHealthCheck(store, clock, api.maxClockSkewMillis()));
        checks.register("pump-lag", new PumpLagHealthCheck(report, api.maxPumpLagMillis()));
        checks.register(
                "delivery",
                new DeliveryHealthCheck(
                        metrics.meter("delay.delivered"),
                        metrics.meter("delay.retried"),
                        time,
                        DELIVERY_WINDOW_MILLIS,
                        DELIVERY_MIN_FAILURES));
        checks.register("pipeline", new PipelineHealthCheck(parts.intake(), parts.pump()));
        checks.register("far-tier", new FarTierHealthCheck(parts.far()::state, parts.thawMetrics()));
        return build;
    }
}

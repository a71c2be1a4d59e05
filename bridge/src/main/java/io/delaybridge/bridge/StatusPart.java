package io.delaybridge.bridge;

import com.codahale.metrics.MetricRegistry;
import io.delaybridge.bridge.admin.BuildInfo;
import io.delaybridge.bridge.admin.GroupView;
import io.delaybridge.bridge.admin.OperationsGauges;
import io.delaybridge.bridge.admin.PrometheusExport;
import io.delaybridge.bridge.admin.RulesReport;
import io.delaybridge.bridge.admin.ShardGauges;
import io.delaybridge.bridge.admin.ShardReport;
import io.delaybridge.bridge.admin.api.StatusResource;
import io.delaybridge.bridge.delivery.TargetRates;
import io.delaybridge.bridge.store.MessageAdmin;
import io.delaybridge.bridge.store.redis.RedisDelayStore;
import io.delaybridge.bridge.time.Time;
import io.dropwizard.core.setup.Environment;

/**
 * What the bridge shows of its state, a part of {@link AdminPart}'s wiring: the gauges (the build, the shards, the
 * pump, the group, the producer), the Prometheus export of them and of the health checks, and the status page.
 */
final class StatusPart {

    private StatusPart() {}

    /** Registers the gauges over {@code parts} and serves them, with the health checks, on {@code /prometheus}. */
    static void wire(
            Environment environment,
            PipelineParts parts,
            ShardReport report,
            GroupView group,
            BuildInfo build,
            Time time) {
        MetricRegistry metrics = environment.metrics();
        RedisDelayStore store = parts.store();
        build.register(metrics);
        ShardGauges.register(metrics, store, store.far());
        OperationsGauges.register(metrics, report, parts.pump(), group, parts.delivery()::producerMetrics);
        environment
                .admin()
                .addServlet("prometheus", PrometheusExport.servlet(metrics, environment.healthChecks(), time, build))
                .addMapping("/prometheus");
    }

    /**
     * The status page: the shards, the meters, the health checks, the rules, the capped targets, the series ({@code
     * messages}, read at most once per few seconds by {@code time}) and the build.
     */
    static void statusPage(
            Environment environment,
            ShardReport report,
            RulesReport rules,
            TargetRates rates,
            MessageAdmin messages,
            Time time) {
        environment
                .jersey()
                .register(new StatusResource(report, environment.metrics(), environment.healthChecks(), rules)
                        .withTargets(rates::rows)
                        .withSeries(messages, report.shardCount(), time)
                        .withBuild(BuildInfo.ofThisBuild()));
    }
}

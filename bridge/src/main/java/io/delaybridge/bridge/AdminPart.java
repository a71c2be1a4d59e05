package io.delaybridge.bridge;

import com.codahale.metrics.MetricRegistry;
import io.delaybridge.bridge.admin.BuildInfo;
import io.delaybridge.bridge.admin.ClockSkewHealthCheck;
import io.delaybridge.bridge.admin.DeliveryHealthCheck;
import io.delaybridge.bridge.admin.FarMessages;
import io.delaybridge.bridge.admin.GroupView;
import io.delaybridge.bridge.admin.IncarnationHealthCheck;
import io.delaybridge.bridge.admin.KafkaHealthCheck;
import io.delaybridge.bridge.admin.OperationsGauges;
import io.delaybridge.bridge.admin.PipelineHealthCheck;
import io.delaybridge.bridge.admin.PrometheusExport;
import io.delaybridge.bridge.admin.PumpLagHealthCheck;
import io.delaybridge.bridge.admin.PumpPauseTask;
import io.delaybridge.bridge.admin.RedisHealthCheck;
import io.delaybridge.bridge.admin.RulesReport;
import io.delaybridge.bridge.admin.ShardGauges;
import io.delaybridge.bridge.admin.ShardReport;
import io.delaybridge.bridge.admin.api.ApiSettings;
import io.delaybridge.bridge.admin.api.AuthFilter;
import io.delaybridge.bridge.admin.api.DeadletterResource;
import io.delaybridge.bridge.admin.api.MessagesResource;
import io.delaybridge.bridge.admin.api.SeriesResource;
import io.delaybridge.bridge.admin.api.ShardsResource;
import io.delaybridge.bridge.admin.api.StatusResource;
import io.delaybridge.bridge.admin.api.StoreExceptionMapper;
import io.delaybridge.bridge.config.KafkaFactory;
import io.delaybridge.bridge.delivery.DeadletterReplay;
import io.delaybridge.bridge.delivery.TargetRates;
import io.delaybridge.bridge.intake.FarPolicy;
import io.delaybridge.bridge.intake.IntakeLoop;
import io.delaybridge.bridge.log.OffsetReader;
import io.delaybridge.bridge.pump.Pump;
import io.delaybridge.bridge.pump.PumpPauses;
import io.delaybridge.bridge.store.MessageAdmin;
import io.delaybridge.bridge.store.redis.RedisDelayStore;
import io.delaybridge.bridge.thaw.FarTierHealthCheck;
import io.delaybridge.bridge.time.Time;
import io.dropwizard.core.setup.Environment;
import jakarta.servlet.DispatcherType;
import java.time.Clock;
import java.time.Duration;
import java.util.EnumSet;
import java.util.concurrent.ExecutorService;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.Producer;

/**
 * Wires operations beside the running pipeline, a part of {@link DelayBridgeApplication}'s wiring kept in its own
 * class: health checks, gauges, Prometheus, the pause tasks, authentication, the message, shard and deadletter API.
 * The rules and the status page that shows them are wired after it.
 */
final class AdminPart {

    /** How long the API reads far records back from the intake, per request. */
    private static final Duration INTAKE_READ = Duration.ofSeconds(15);
    /** How long the group's view (members, committed offsets) is reused by the status page and gauges. */
    private static final long GROUP_VIEW_MILLIS = 2_000;

    /** The {@code delivery} check: unhealthy when this many sends were retried and none delivered in the window. */
    private static final long DELIVERY_WINDOW_MILLIS = 60_000;

    private static final long DELIVERY_MIN_FAILURES = 10;

    private static final long ADMIN_CALL_MILLIS = DelayBridgeApplication.ADMIN_CALL_MILLIS;

    private AdminPart() {}

    /** Wires operations over {@code parts}; returns the shard report the status page shows. */
    static ShardReport wire(
            DelayBridgeConfiguration config,
            Environment environment,
            Admin admin,
            PipelineParts parts,
            ApiSettings api,
            Clock clock,
            Time time) {
        KafkaFactory kafka = config.getKafka();
        MetricRegistry metrics = environment.metrics();
        RedisDelayStore store = parts.store();
        Pump pump = parts.pump();
        PumpPauses pauses = pump.pauses();
        IntakeLoop intake = parts.intake();
        FarPolicy far = parts.far();
        Producer<byte[], byte[]> producer = parts.producer();
        MessageAdmin messages = store.messageAdmin();
        GroupView group = new GroupView(
                admin, kafka.getGroupId(), kafka.getIntakeTopic(), clock, GROUP_VIEW_MILLIS, ADMIN_CALL_MILLIS);
        ShardReport report = new ShardReport(store, messages, store.far(), pump, group);
        // far records wait in the intake's log: the API reads them back by position to show and act on them
        OffsetReader intakeReader =
                new OffsetReader(kafka.offsetReaderProperties("api"), kafka.getIntakeTopic(), INTAKE_READ, time);
        environment.lifecycle().manage(closing(intakeReader));
        FarMessages farMessages = new FarMessages(
                store.far(),
                messages,
                store.router(),
                intakeReader,
                INTAKE_READ,
                parts.intakeSettings().translator());

        BuildInfo build = BuildInfo.ofThisBuild(); // the version and commit: a check, a gauge, the status page
        environment.healthChecks().register("build", build.healthCheck());
        build.register(metrics);
        environment.healthChecks().register("kafka", new KafkaHealthCheck(admin, ADMIN_CALL_MILLIS));
        environment.healthChecks().register("redis", new RedisHealthCheck(store, messages));
        environment.healthChecks().register("redis-incarnation", new IncarnationHealthCheck(messages));
        environment
                .healthChecks()
                .register("clock-skew", new ClockSkewHealthCheck(store, clock, api.maxClockSkewMillis()));
        environment.healthChecks().register("pump-lag", new PumpLagHealthCheck(report, api.maxPumpLagMillis()));
        environment
                .healthChecks()
                .register(
                        "delivery",
                        new DeliveryHealthCheck(
                                metrics.meter("delay.delivered"),
                                metrics.meter("delay.retried"),
                                time,
                                DELIVERY_WINDOW_MILLIS,
                                DELIVERY_MIN_FAILURES));
        environment.healthChecks().register("pipeline", new PipelineHealthCheck(intake, pump));
        environment.healthChecks().register("far-tier", new FarTierHealthCheck(far::state, parts.thawMetrics()));
        ShardGauges.register(metrics, store, store.far());
        OperationsGauges.register(metrics, report, pump, group, producer.metrics());
        environment
                .admin()
                .addServlet("prometheus", PrometheusExport.servlet(metrics, environment.healthChecks(), time, build))
                .addMapping("/prometheus");
        environment.admin().addTask(PumpPauseTask.pause(pauses));
        environment.admin().addTask(PumpPauseTask.resume(pauses));

        AuthFilter auth = new AuthFilter(api.credentials(), api.authenticateReads(), api.maxBodyBytes());
        environment
                .servlets()
                .addFilter("auth", auth)
                .addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST), true, "/*");
        environment
                .admin()
                .addFilter("auth", auth)
                .addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST), true, "/*");

        ExecutorService replayThread = environment
                .lifecycle()
                .executorService("deadletter-replay")
                .minThreads(1)
                .maxThreads(1)
                .build();
        DeadletterResource deadletter = new DeadletterResource(
                (id, filter) -> new DeadletterReplay(
                        id,
                        filter,
                        kafka.consumerProperties(),
                        producer,
                        kafka.getDeadletterTopic(),
                        kafka.getIntakeTopic(),
                        clock),
                replayThread,
                api.maxReplay());
        environment.lifecycle().manage(closing(deadletter::stopAll));
        environment.jersey().register(new StoreExceptionMapper());
        environment
                .jersey()
                .register(new MessagesResource(
                        store,
                        messages,
                        farMessages,
                        api,
                        config.getIntake().getMaxDelay().toMilliseconds(),
                        metrics));
        environment.jersey().register(new SeriesResource(store, messages));
        environment.jersey().register(new ShardsResource(report));
        environment.jersey().register(deadletter);
        return report;
    }

    private static io.dropwizard.lifecycle.Managed closing(AutoCloseable resource) {
        return DelayBridgeApplication.closing(resource);
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

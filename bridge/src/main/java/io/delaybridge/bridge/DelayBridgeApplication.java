package io.delaybridge.bridge;

import com.codahale.metrics.MetricRegistry;
import io.delaybridge.bridge.admin.BuildInfo;
import io.delaybridge.bridge.admin.KafkaHealthCheck;
import io.delaybridge.bridge.admin.RulesReport;
import io.delaybridge.bridge.admin.ShardReport;
import io.delaybridge.bridge.admin.api.ApiSettings;
import io.delaybridge.bridge.admin.api.StatusResource;
import io.delaybridge.bridge.config.CodecWarmup;
import io.delaybridge.bridge.config.KafkaFactory;
import io.delaybridge.bridge.config.TopicSetup;
import io.delaybridge.bridge.delivery.DeadletterMeters;
import io.delaybridge.bridge.delivery.Delivery;
import io.delaybridge.bridge.delivery.TargetCatalog;
import io.delaybridge.bridge.delivery.TargetRates;
import io.delaybridge.bridge.express.ExpressSends;
import io.delaybridge.bridge.intake.FarPolicy;
import io.delaybridge.bridge.intake.IntakeClients;
import io.delaybridge.bridge.intake.IntakeLoop;
import io.delaybridge.bridge.intake.IntakeMetrics;
import io.delaybridge.bridge.intake.IntakeSettings;
import io.delaybridge.bridge.intake.IntakeStore;
import io.delaybridge.bridge.intake.PartitionListener;
import io.delaybridge.bridge.intake.RetentionWatch;
import io.delaybridge.bridge.probe.PipelineProbe;
import io.delaybridge.bridge.pump.PausableStore;
import io.delaybridge.bridge.pump.Pump;
import io.delaybridge.bridge.pump.PumpMetrics;
import io.delaybridge.bridge.pump.PumpPauses;
import io.delaybridge.bridge.pump.PumpSends;
import io.delaybridge.bridge.store.redis.RedisDelayStore;
import io.delaybridge.bridge.store.redis.RedisSharedRates;
import io.delaybridge.bridge.thaw.ThawLoop;
import io.delaybridge.bridge.thaw.ThawMetrics;
import io.delaybridge.bridge.thaw.ThawOutput;
import io.delaybridge.bridge.thaw.ThawSource;
import io.delaybridge.bridge.time.RedisClock;
import io.delaybridge.bridge.time.Time;
import io.dropwizard.configuration.EnvironmentVariableSubstitutor;
import io.dropwizard.configuration.SubstitutingSourceProvider;
import io.dropwizard.core.Application;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.lifecycle.Managed;
import java.time.Clock;
import java.util.Collection;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The delay bridge: {@code java -jar delay-bridge.jar server config.yml}; {@code rules config.yml} runs only the
 * delay rules ({@link RulesCommand}).
 *
 * <p>This is the one place where objects are wired: {@code intake -> store -> pump -> delivery/deadletter}, with the
 * admin checks and gauges beside them.
 */
public class DelayBridgeApplication extends Application<DelayBridgeConfiguration> {

    /** How long one admin-client call (a topic lookup, a health probe, the group's offsets) may take. */
    static final long ADMIN_CALL_MILLIS = 5_000;
    /** How long a target topic known to exist, and its partition count, are trusted before they are looked up again. */
    private static final long TOPIC_KNOWN_MILLIS = 60_000;
    /** How long a target topic found missing is believed missing; a topic created meanwhile is seen this late. */
    private static final long TOPIC_MISSING_MILLIS = 5_000;
    /** The thaw's window when {@code intake.hotWindow} is off: far records written before thaw as with the default. */
    private static final long THAW_WINDOW_WHEN_OFF_MILLIS = 3_600_000;

    private final Clock clock;
    private final PipelineProbe probe;

    /** The service: the system clock, and no probe. */
    public DelayBridgeApplication() {
        this(Clock.systemUTC(), PipelineProbe.NONE);
    }

    /** A bridge on {@code clock} whose pipeline tells {@code probe} of its checkpoints (the fault campaign's). */
    public DelayBridgeApplication(Clock clock, PipelineProbe probe) {
        this.clock = clock;
        this.probe = probe;
    }

    public static void main(String[] args) throws Exception {
        StartupTimeline.mainEntered();
        new DelayBridgeApplication().run(args);
    }

    @Override
    public String getName() {
        return "delay-bridge";
    }

    @Override
    public void initialize(Bootstrap<DelayBridgeConfiguration> bootstrap) {
        // ${KAFKA_BOOTSTRAP_SERVERS:-localhost:9092}: the environment, with defaults
        bootstrap.setConfigurationSourceProvider(new SubstitutingSourceProvider(
                bootstrap.getConfigurationSourceProvider(), new EnvironmentVariableSubstitutor(false)));
        bootstrap.addCommand(new RulesCommand(this)); // java -jar delay-bridge.jar rules config.yml
    }

    @Override
    public void run(DelayBridgeConfiguration config, Environment environment) {
        StartupTimeline timeline = StartupTimeline.ofThisJvm();
        environment.lifecycle().addServerLifecycleListener(server -> timeline.httpStarted());
        Time time = Time.of(clock); // every part reads time through it
        KafkaFactory kafka = config.getKafka();
        MetricRegistry metrics = environment.metrics();

        // the producer's codec, a native library its first use unpacks and loads, is loaded beside the checks
        StartupSteps.inBackground("delay-startup-codec", () -> CodecWarmup.warm(kafka.producerCompression()));
        // the topics and Redis side by side: each is mostly a cold client's first round trips
        long checks = timeline.now();
        Admin admin = Admin.create(kafka.adminProperties());
        environment.lifecycle().manage(closing(admin::close));
        CompletableFuture<Integer> partitions = StartupSteps.inBackground("delay-startup-topics", () -> {
            long since = timeline.now();
            int count = new TopicSetup(admin, time)
                    .prepare(
                            kafka.getIntakeTopic(),
                            kafka.getDeadletterTopic(),
                            kafka.isCreateTopics(),
                            kafka.getIntakePartitions(),
                            kafka.getReplicationFactor());
            timeline.took("topics", since);
            return count;
        });
        if (config.isRulesOnly()) {
            StartupSteps.await(partitions);
            environment.healthChecks().register("kafka", new KafkaHealthCheck(admin, ADMIN_CALL_MILLIS));
            RulesPart.wire(config, environment, admin, new DeadletterMeters(metrics), clock);
            return;
        }

        long redisSince = timeline.now();
        AtomicLong waitedForTopics = new AtomicLong(); // the store asks for the shard count once Redis is checked
        RedisDelayStore store;
        try {
            store = config.getRedis()
                    .build(
                            kafka.getIntakeTopic(),
                            () -> {
                                long waiting = timeline.now();
                                int count = StartupSteps.await(partitions);
                                waitedForTopics.set(timeline.now() - waiting);
                                return count;
                            },
                            time);
        } catch (RuntimeException e) {
            StartupSteps.await(partitions); // a topic problem is reported first: Redis may have failed only for it
            throw e;
        }
        timeline.took("redis", redisSince + waitedForTopics.get());
        environment.lifecycle().manage(closing(store::close));
        timeline.checksDone(checks);

        IntakeSettings intakeSettings = config.getIntake().build(kafka.getIntakeTopic(), kafka.getDeadletterTopic());
        Producer<byte[], byte[]> producer = new KafkaProducer<>(
                kafka.producerProperties(intakeSettings.maxRecordBytes()),
                new ByteArraySerializer(),
                new ByteArraySerializer());
        environment.lifecycle().manage(closing(producer::close));

        DeadletterMeters deadletterMeters = new DeadletterMeters(metrics);
        PausableStore pumpStore = new PausableStore(store); // single shards can be paused (admin task)
        // delivery rate caps and per-target meters; a cap for the service takes its tokens from Redis
        TargetRates rates = config.getPump().rates(metrics, new RedisSharedRates(store));
        // one catalog for both paths: the pump's and the intake's express sends check targets alike
        TargetCatalog targets = new TargetCatalog(
                admin,
                clock,
                TOPIC_KNOWN_MILLIS,
                TOPIC_MISSING_MILLIS,
                ADMIN_CALL_MILLIS,
                config.getPump().missingTopics(admin, ADMIN_CALL_MILLIS, time));
        // both paths send with it; with delivery.exactlyOnce a transactional producer per shard
        Delivery delivery = buildDelivery(
                config,
                admin,
                producer,
                targets,
                StartupSteps.await(partitions),
                intakeSettings.maxRecordBytes(),
                time);
        if (delivery.exactlyOnce()) {
            environment.lifecycle().manage(closing(delivery)); // stopped after the pump: its last commits go first
        }
        // the running parts start at the end of run, before Dropwizard builds its server; the lifecycle stops them
        PipelineStart pipeline = new PipelineStart(environment.lifecycle());
        // one model of Redis' clock for the pump, the intake and the release threads
        RedisClock redisClock = new RedisClock(time, store::now);
        Pump pump = new Pump(
                pumpStore,
                new PumpSends(delivery, rates, config.getPump().retryPolicy()),
                config.getPump().build(),
                new PumpMetrics(metrics, deadletterMeters),
                redisClock,
                probe);
        pipeline.manage(pump);
        // a zombie's intake (stopped past its session) cannot store again what the shard's new owner delivered
        store.fenceWrites(pump::writeFence);

        // records due beyond intake.hotWindow wait in the intake's log while its retention keeps them: the watch reads
        // it at once on its own thread (start-up does not wait), then every intake.retentionCheckInterval
        FarPolicy far = new FarPolicy(intakeSettings.hotWindowMillis(), clock);
        if (far.windowOn()) {
            pipeline.manage(new RetentionWatch(
                    admin,
                    kafka.getIntakeTopic(),
                    intakeSettings.farRetentionMarginMillis(),
                    intakeSettings.retentionCheckInterval(),
                    ADMIN_CALL_MILLIS,
                    far));
        }
        IntakeMetrics intakeMetrics = new IntakeMetrics(metrics, deadletterMeters);
        intakeMetrics.farTier(far);

        // the far tier's thaw, under the pump's epochs: stopped before the pump and the store
        ThawMetrics thawMetrics = new ThawMetrics(metrics, redisClock);
        pipeline.manage(new ThawLoop(
                new ThawSource(store.far(), store::now, pump::ownedEpochs),
                kafka.offsetReaderProperties("thaw"),
                intakeSettings.log(),
                new ThawOutput(producer, deadletterMeters, thawMetrics),
                // with the far tier off, records written far before still thaw by their hours, not at once
                far.windowOn() ? intakeSettings.hotWindowMillis() : THAW_WINDOW_WHEN_OFF_MILLIS,
                config.getIntake().getThawAheadRate(),
                time));

        IntakeLoop intake = new IntakeLoop(
                new IntakeClients(kafka.consumerProperties(), producer),
                new IntakeStore(store, far, redisClock),
                intakeSettings,
                new PartitionListener() {
                    @Override
                    public void assigned(Collection<Integer> shards) {
                        pump.assign(shards);
                        timeline.firstPoll();
                    }

                    @Override
                    public void revoked(Collection<Integer> shards) {
                        pump.revoke(shards);
                    }
                },
                intakeMetrics,
                new ExpressSends(
                        delivery, // exactly once: express records commit their offsets in their shard's transaction
                        rates,
                        new PumpPauses(pump, pumpStore)), // a paused pump delivers nothing
                probe);
        pipeline.manage(intake); // stopped first: its partitions are revoked while the pump runs

        // operations: health checks, gauges, Prometheus, tasks, the message API and the status page
        ApiSettings api = config.getApi().build();
        ShardReport report = AdminPart.wire(
                config,
                environment,
                admin,
                new PipelineParts(store, pumpStore, pump, intake, far, thawMetrics, producer, intakeSettings),
                api,
                clock,
                time);
        RulesReport rules = RulesPart.wire(config, environment, admin, deadletterMeters, clock); // started last
        if (api.statusPage()) {
            environment
                    .jersey()
                    .register(new StatusResource(report, metrics, environment.healthChecks(), rules)
                            .withTargets(rates::rows)
                            .withBuild(BuildInfo.ofThisBuild()));
        }
        pipeline.start(); // everything is wired: the rules still start with the server, after the pipeline
        timeline.pipelineRunning();
    }

    private static Delivery buildDelivery(
            DelayBridgeConfiguration config,
            Admin admin,
            Producer<byte[], byte[]> producer,
            TargetCatalog targets,
            int partitions,
            int maxRecordBytes,
            Time time) {
        try {
            return config.getDelivery()
                    .build(
                            config.getKafka(),
                            admin,
                            producer,
                            targets,
                            partitions,
                            maxRecordBytes,
                            config.getPump().getLease().toMilliseconds(),
                            time);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while preparing delivery.exactlyOnce", e);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(
                    "delivery.exactlyOnce: could not prepare the delivered log: " + e.getMessage(), e);
        }
    }

    /** Closes a resource when the application stops; Dropwizard stops managed objects in reverse order. */
    static Managed closing(AutoCloseable resource) {
        return new Managed() {
            @Override
            public void stop() throws Exception {
                resource.close();
            }
        };
    }
}

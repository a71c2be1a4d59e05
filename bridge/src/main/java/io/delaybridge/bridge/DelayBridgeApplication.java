package io.delaybridge.bridge;

import io.delaybridge.bridge.admin.KafkaHealthCheck;
import io.delaybridge.bridge.delivery.DeadletterMeters;
import io.delaybridge.bridge.intake.IntakeLoop;
import io.delaybridge.bridge.probe.PipelineProbe;
import io.delaybridge.bridge.store.redis.RedisDelayStore;
import io.delaybridge.bridge.time.Time;
import io.dropwizard.configuration.EnvironmentVariableSubstitutor;
import io.dropwizard.configuration.SubstitutingSourceProvider;
import io.dropwizard.core.Application;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.lifecycle.Managed;
import java.time.Clock;
import org.apache.kafka.clients.admin.Admin;

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
        // the topics and Redis side by side: each is mostly a cold client's first round trips
        long checks = timeline.now();
        TopicsPart topics = TopicsPart.start(config.getKafka(), environment.lifecycle(), timeline, time);
        Admin admin = topics.admin();
        DeadletterMeters deadletters = new DeadletterMeters(environment.metrics());
        if (config.isRulesOnly()) {
            topics.awaitPartitions();
            environment.healthChecks().register("kafka", new KafkaHealthCheck(admin, ADMIN_CALL_MILLIS));
            RulesPart.wire(config, environment, admin, deadletters, clock);
            return;
        }

        Wiring wiring =
                new Wiring(config, environment, new Wiring.Clocks(clock, time, timeline), admin, probe, deadletters);
        RedisDelayStore store = StorePart.build(wiring, topics.partitions());
        timeline.checksDone(checks);
        DeliveryPart delivery = DeliveryPart.build(wiring, store, topics.awaitPartitions());
        PumpPart pump = PumpPart.build(wiring, store, delivery);
        FarPart far = FarPart.build(wiring, store, pump, delivery);
        IntakeLoop intake = IntakePart.build(wiring, store, delivery, pump, far);

        // operations: health checks, gauges, Prometheus, tasks, the message API, the rules and the status page
        OperationsPart.wire(
                wiring,
                new PipelineParts(
                        store,
                        pump.pump(),
                        intake,
                        far.far(),
                        far.thawMetrics(),
                        delivery.producer(),
                        delivery.delivery(),
                        wiring.intakeSettings()),
                delivery.rates());
        wiring.pipeline().start(); // everything is wired: the rules still start with the server, after the pipeline
        timeline.pipelineRunning();
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

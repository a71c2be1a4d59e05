package io.delaybridge.bridge;

import com.codahale.metrics.MetricRegistry;
import io.delaybridge.bridge.config.KafkaFactory;
import io.delaybridge.bridge.delivery.DeadletterMeters;
import io.delaybridge.bridge.intake.IntakeSettings;
import io.delaybridge.bridge.probe.PipelineProbe;
import io.delaybridge.bridge.time.Time;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.lifecycle.Managed;
import java.time.Clock;
import org.apache.kafka.clients.admin.Admin;

/**
 * What every part of the pipeline is built from: the configuration and the intake's settings read from it, the
 * Dropwizard environment (its lifecycle, metrics and health checks), the one clock and its time seam, the admin
 * client, the start-up timeline, the fault campaign's probe, the deadletter meters both paths count on, and the
 * {@link PipelineStart} the running parts are handed to.
 *
 * <p>Each part ({@link StorePart}, {@link DeliveryPart}, {@link PumpPart}, {@link FarPart}, {@link IntakePart}) is
 * built from it by {@link DelayBridgeApplication#run} in that order; resources are handed to the lifecycle in that
 * order too, so they stop in the reverse one.
 */
final class Wiring {

    private final DelayBridgeConfiguration config;
    private final IntakeSettings intakeSettings;
    private final Environment environment;
    private final Clocks clocks;
    private final Admin admin;
    private final PipelineProbe probe;
    private final DeadletterMeters deadletters;
    private final PipelineStart pipeline;

    Wiring(
            DelayBridgeConfiguration config,
            Environment environment,
            Clocks clocks,
            Admin admin,
            PipelineProbe probe,
            DeadletterMeters deadletters) {
        this.config = config;
        this.intakeSettings = config.getIntake()
                .build(config.getKafka().getIntakeTopic(), config.getKafka().getDeadletterTopic());
        this.environment = environment;
        this.clocks = clocks;
        this.admin = admin;
        this.probe = probe;
        this.deadletters = deadletters;
        // the running parts start at the end of run, before Dropwizard builds its server; the lifecycle stops them
        this.pipeline = new PipelineStart(environment.lifecycle());
    }

    /** The wall clock, the time seam over it and the start-up timeline. */
    record Clocks(Clock clock, Time time, StartupTimeline timeline) {}

    DelayBridgeConfiguration config() {
        return config;
    }

    IntakeSettings intakeSettings() {
        return intakeSettings;
    }

    Admin admin() {
        return admin;
    }

    PipelineProbe probe() {
        return probe;
    }

    DeadletterMeters deadletters() {
        return deadletters;
    }

    PipelineStart pipeline() {
        return pipeline;
    }

    Environment environment() {
        return environment;
    }

    KafkaFactory kafka() {
        return config.getKafka();
    }

    MetricRegistry metrics() {
        return environment.metrics();
    }

    Clock clock() {
        return clocks.clock();
    }

    Time time() {
        return clocks.time();
    }

    StartupTimeline timeline() {
        return clocks.timeline();
    }

    /** Closes {@code resource} when the application stops, after the parts handed over later. */
    void closing(AutoCloseable resource) {
        environment.lifecycle().manage(DelayBridgeApplication.closing(resource));
    }

    /** A running part, started once everything is wired and stopped by the lifecycle. */
    void running(Managed part) {
        pipeline.manage(part);
    }
}

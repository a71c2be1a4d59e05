package io.delaybridge.bridge;

import io.delaybridge.bridge.intake.FarPolicy;
import io.delaybridge.bridge.intake.IntakeSettings;
import io.delaybridge.bridge.intake.RetentionWatch;
import io.delaybridge.bridge.store.redis.RedisDelayStore;
import io.delaybridge.bridge.thaw.ThawLoop;
import io.delaybridge.bridge.thaw.ThawMetrics;
import io.delaybridge.bridge.thaw.ThawOutput;
import io.delaybridge.bridge.thaw.ThawSource;

/**
 * The far tier, a part of {@link DelayBridgeApplication}'s wiring: records due beyond {@code intake.hotWindow} wait in
 * the intake's log while its retention keeps them (the retention watch reads it at once on its own thread, start-up
 * does not wait, then every {@code intake.retentionCheckInterval}); the thaw brings them back under the pump's epochs.
 *
 * @param far whether a record is stored far, as the retention allows
 * @param thawMetrics the thaw's meters, for the operations wired beside
 */
record FarPart(FarPolicy far, ThawMetrics thawMetrics) {

    /** The thaw's window when {@code intake.hotWindow} is off: far records written before thaw as with the default. */
    private static final long THAW_WINDOW_WHEN_OFF_MILLIS = 3_600_000;

    /** Builds the far policy, the retention watch and the thaw; both run in the pipeline, the thaw stops first. */
    static FarPart build(Wiring wiring, RedisDelayStore store, PumpPart pump, DeliveryPart delivery) {
        IntakeSettings settings = wiring.intakeSettings();
        // Redis' clock, not this host's: a record one instance stored hot must not go far when another, whose host
        // clock is behind, reads it again after a crash (its thaw would deliver it a second time)
        FarPolicy far =
                new FarPolicy(settings.hotWindowMillis(), pump.redisClock().asClock());
        if (far.windowOn()) {
            wiring.running(new RetentionWatch(
                    wiring.admin(),
                    wiring.kafka().getIntakeTopic(),
                    settings.farRetentionMarginMillis(),
                    settings.retentionCheckInterval(),
                    DelayBridgeApplication.ADMIN_CALL_MILLIS,
                    far));
        }
        ThawMetrics thawMetrics = new ThawMetrics(wiring.metrics(), pump.redisClock());
        wiring.running(new ThawLoop(
                new ThawSource(store.far(), store::now, pump.pump()::ownedEpochs),
                wiring.kafka().offsetReaderProperties("thaw"),
                settings.log(),
                new ThawOutput(delivery.producer(), wiring.deadletters(), thawMetrics),
                // with the far tier off, records written far before still thaw by their hours, not at once
                far.windowOn() ? settings.hotWindowMillis() : THAW_WINDOW_WHEN_OFF_MILLIS,
                wiring.config().getIntake().getThawAheadRate(),
                wiring.time()));
        return new FarPart(far, thawMetrics);
    }
}

package io.delaybridge.bridge;

import io.delaybridge.bridge.express.ExpressSends;
import io.delaybridge.bridge.intake.IntakeClients;
import io.delaybridge.bridge.intake.IntakeLoop;
import io.delaybridge.bridge.intake.IntakeMetrics;
import io.delaybridge.bridge.intake.IntakeStore;
import io.delaybridge.bridge.intake.PartitionListener;
import io.delaybridge.bridge.store.redis.RedisDelayStore;
import java.util.Collection;

/**
 * The intake, a part of {@link DelayBridgeApplication}'s wiring: it reads the intake topic, stores each record hot or
 * far, sends the express records through delivery, and tells the pump which shards it owns as partitions come and go.
 */
final class IntakePart {

    private IntakePart() {}

    /** Builds the intake and hands it to the pipeline last: it is stopped first, its partitions revoked while the pump runs. */
    static IntakeLoop build(Wiring wiring, RedisDelayStore store, DeliveryPart delivery, PumpPart pump, FarPart far) {
        IntakeMetrics metrics = new IntakeMetrics(wiring.metrics(), wiring.deadletters());
        metrics.farTier(far.far());
        IntakeLoop intake = new IntakeLoop(
                new IntakeClients(wiring.kafka().consumerProperties(), delivery.producer()),
                new IntakeStore(store, far.far(), pump.redisClock()),
                wiring.intakeSettings(),
                new PartitionListener() {
                    @Override
                    public void assigned(Collection<Integer> shards) {
                        pump.pump().assign(shards);
                        wiring.timeline().firstPoll();
                    }

                    @Override
                    public void revoked(Collection<Integer> shards) {
                        pump.pump().revoke(shards);
                    }
                },
                metrics,
                new ExpressSends(
                        delivery.delivery(), // exactly once: express records commit their offsets in their shard's
                        // transaction
                        delivery.rates(),
                        pump.pump().pauses()), // a paused pump delivers nothing
                wiring.probe());
        wiring.running(intake);
        return intake;
    }
}

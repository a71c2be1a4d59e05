package io.delaybridge.bridge.intake;

import io.delaybridge.bridge.express.IntakeDelivery;
import io.delaybridge.bridge.log.RefusedRecords;
import io.delaybridge.bridge.probe.PipelineProbe;
import io.delaybridge.bridge.store.DelayStore;
import io.delaybridge.bridge.time.RedisClock;
import java.util.concurrent.CountDownLatch;

/**
 * The parts of an {@link IntakeLoop}, built and wired to each other in one place: the {@link StorePositions} that the
 * {@link IntakeMember}, the {@link PollWriter} and the {@link IntakeRewind} share; the {@link BatchesInFlight} the
 * writer's polls wait in; the {@link IntakeExpress} whose gate the writer admits records at; the {@link RetryBackoff},
 * which a stop request cuts short; and the {@link BatchOutput} where a completed poll's parts go. The loop adds its
 * {@link BatchCompletion}, which calls back into it, and runs over them.
 */
record IntakeAssembly(
        CountDownLatch stopRequested,
        StorePositions positions,
        BatchesInFlight inFlight,
        RetryBackoff backoff,
        IntakeExpress express,
        IntakeMember member,
        PollWriter writer,
        IntakeRewind rewinds,
        BatchOutput output) {

    /** Builds the intake's parts from what {@link IntakeLoop}'s constructor is given. */
    static IntakeAssembly wire(
            IntakeClients clients,
            IntakeStore target,
            IntakeSettings settings,
            PartitionListener partitionListener,
            IntakeMetrics metrics,
            IntakeDelivery sends,
            PipelineProbe probe) {
        CountDownLatch stopRequested = new CountDownLatch(1);
        StorePositions positions = new StorePositions();
        DelayStore store = target.store();
        RedisClock redisClock = target.redisClock();
        BatchesInFlight inFlight = new BatchesInFlight(redisClock.time());
        RetryBackoff backoff = new RetryBackoff(settings.retryBackoff(), settings.maxRetryBackoff(), stopRequested);
        IntakeExpress express = IntakeExpress.of(settings, sends, store, metrics, redisClock);
        IntakeMember member = new IntakeMember(
                clients.consumerProperties(), settings, target, metrics, express, positions, partitionListener);
        PollWriter writer = new PollWriter(
                store, settings.translator(), positions, express.gate(), target.far(), redisClock, redisClock.time());
        IntakeRewind rewinds = new IntakeRewind(inFlight, writer, positions, sends);
        RefusedRecords refused =
                new RefusedRecords(clients.producer(), settings.deadletterTopic(), IntakeLoop.WRITE_TIMEOUT_SECONDS);
        return new IntakeAssembly(
                stopRequested,
                positions,
                inFlight,
                backoff,
                express,
                member,
                writer,
                rewinds,
                new BatchOutput(refused, express, metrics, probe));
    }
}

package io.delaybridge.bridge.pump;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.delaybridge.bridge.store.ClaimBatch;
import io.delaybridge.bridge.store.DelayStore;
import io.delaybridge.bridge.store.StoreUnavailableException;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.TestServers;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A claim that fails (Redis timed out, a connection dropped) must not make the pump forget that the shard is due. The
 * wake-up that made it due is used up by the claim, and no later wake-up comes while the message stays the shard's
 * earliest: a pump that forgot would sleep past the due time until the shard changed hands. And a claim that ran in
 * Redis but whose answer was lost (Redis killed after running it) must not leave what it took in flight until the
 * lease ends. The store is a real Redis; a proxy fails one claim, as Redis would.
 */
@ExtendWith(RealServersExtension.class)
class PumpClaimFailureIT {

    @Test
    void aFailedClaimIsTriedAgainWithoutAnotherWakeUp(TestServers servers) throws Exception {
        try (PumpRig rig = new PumpRig(servers, "cf", true)) {
            AtomicInteger claimsToFail = new AtomicInteger();
            AtomicInteger failedClaims = new AtomicInteger();
            DelayStore store = failingClaims(rig.store, claimsToFail, failedClaims);
            // a long lease: the periodic reclaim (every half lease) must not be what rescues the message
            Pump pump = pumpThatDeliveredOne(rig, store);
            try {
                // the shard is idle now; the next message wakes the pump, and its first claim fails
                claimsToFail.set(1);
                rig.schedule(1, rig.store.now());
                await().atMost(Duration.ofSeconds(5))
                        .until(() -> rig.producer.history().size() == 2);
                assertEquals(1, failedClaims.get(), "the claim that was to fail was made");
                assertEquals(0, rig.store.stats(0).pending());
            } finally {
                pump.stop();
            }
        }
    }

    @Test
    void whatAClaimWithALostAnswerTookIsNotLeftToItsLease(TestServers servers) throws Exception {
        try (PumpRig rig = new PumpRig(servers, "cl", true)) {
            AtomicInteger answersToLose = new AtomicInteger();
            AtomicInteger lostAnswers = new AtomicInteger();
            // the claim runs in Redis and takes the messages into flight, then its answer is lost, as when Redis is
            // killed between running a command and writing its reply
            DelayStore store = PumpRig.interceptingClaims(rig.store, claim -> {
                CompletableFuture<ClaimBatch> real = claim.get();
                if (answersToLose.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                    real.join();
                    lostAnswers.incrementAndGet();
                    return CompletableFuture.failedFuture(new StoreUnavailableException(
                            "connection closed before the claim's reply (injected)", null));
                }
                return real;
            });
            // neither the periodic reclaim nor the lease may be what delivers the messages
            Pump pump = pumpThatDeliveredOne(rig, store);
            try {
                answersToLose.set(1);
                long due = rig.store.now();
                rig.schedule(1, due);
                rig.schedule(2, due);
                await().atMost(Duration.ofSeconds(10))
                        .until(() -> rig.producer.history().size() == 3);
                assertEquals(1, lostAnswers.get(), "the claim whose answer was lost ran");
                assertEquals(0, rig.store.stats(0).pending());
                rig.awaitAcknowledged(3);
            } finally {
                pump.stop();
            }
        }
    }

    /**
     * A pump on {@code store} with a lease of two minutes, pumping shard 0, which has delivered one message (so its
     * shard is idle and a new message must wake it).
     */
    private static Pump pumpThatDeliveredOne(PumpRig rig, DelayStore store) throws Exception {
        Pump pump = rig.pump(store, new PumpSettings(100, 120_000, 1_000, 1_000, 0), Clock.systemUTC());
        pump.start();
        try {
            pump.assign(List.of(0));
            rig.schedule(0, rig.store.now());
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> rig.producer.history().size() == 1);
            return pump;
        } catch (Exception | Error e) {
            pump.stop();
            throw e;
        }
    }

    /** The store, except that the next {@code toFail} claims fail as Redis' unavailability would. */
    private static DelayStore failingClaims(DelayStore store, AtomicInteger toFail, AtomicInteger failed) {
        return PumpRig.interceptingClaims(store, claim -> {
            if (toFail.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                failed.incrementAndGet();
                return CompletableFuture.failedFuture(
                        new StoreUnavailableException("claim on shard 0 timed out (injected)", null));
            }
            return claim.get();
        });
    }
}

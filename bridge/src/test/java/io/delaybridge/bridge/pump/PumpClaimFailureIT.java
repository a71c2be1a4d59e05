package io.delaybridge.bridge.pump;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

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
 * earliest: a pump that forgot would sleep past the due time until the shard changed hands. The store is a real Redis;
 * a proxy fails one claim, as Redis would.
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
            Pump pump = rig.pump(store, new PumpSettings(100, 120_000, 1_000, 1_000, 0), Clock.systemUTC());
            pump.start();
            try {
                pump.assign(List.of(0));
                rig.schedule(0, rig.store.now());
                await().atMost(Duration.ofSeconds(10)).until(() -> rig.producer.history().size() == 1);

                // the shard is idle now; the next message wakes the pump, and its first claim fails
                claimsToFail.set(1);
                rig.schedule(1, rig.store.now());
                await().atMost(Duration.ofSeconds(5)).until(() -> rig.producer.history().size() == 2);
                assertEquals(1, failedClaims.get(), "the claim that was to fail was made");
                assertEquals(0, rig.store.stats(0).pending());
            } finally {
                pump.stop();
            }
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

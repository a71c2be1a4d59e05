package io.delaybridge.bridge.pump;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.bridge.store.StoreFencedException;
import io.delaybridge.bridge.store.WriteResult;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.TestServers;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A shard whose intake partition went away refuses this instance's writes until the partition comes back: a write
 * that was on its way when the partition moved (an express record parked on its own thread after the revoke) would
 * otherwise be stored unfenced, and the partition's new owner, which reads the record again and may have delivered it
 * already, would deliver it a second time. The store is the real Redis, the pump wired as the application wires it,
 * its write fences given to the store as the application gives them.
 */
@ExtendWith(RealServersExtension.class)
class RevokedShardFenceIT {

    @Test
    void aWriteAfterTheRevokeIsRefusedAndTheShardTakesWritesAgainOnceAssigned(TestServers servers) throws Exception {
        try (PumpRig rig = new PumpRig(servers, "revoked", true)) {
            Pump pump = rig.pump(new PumpSettings(16, 30_000, 16, 1_000, 0));
            rig.store.fenceWrites(pump::writeFence);
            long later = rig.store.now() + 600_000; // nothing falls due while the test runs
            pump.start();
            try {
                pump.assign(List.of(0));
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> pump.ownedEpochs().containsKey(0));
                assertEquals(pump.ownedEpochs().get(0), pump.writeFence(0), "the owner's writes carry its epoch");
                assertEquals(List.of(WriteResult.STORED), write(rig, 1, later));

                pump.revoke(List.of(0));
                CompletionException refused = assertThrows(CompletionException.class, () -> write(rig, 2, later));
                assertInstanceOf(StoreFencedException.class, refused.getCause(), "a write after the revoke is fenced");
                assertEquals(1, rig.store.stats(0).pending(), "the refused write stored nothing");

                pump.assign(List.of(0)); // the partition comes back to this instance
                assertEquals(List.of(WriteResult.STORED), write(rig, 2, later), "taken again at once");
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> pump.ownedEpochs().containsKey(0));
                assertTrue(pump.writeFence(0) >= 0, "fenced by the new epoch");
                assertEquals(List.of(WriteResult.STORED), write(rig, 3, later));
                assertEquals(3, rig.store.stats(0).pending());
            } finally {
                pump.stop();
            }
        }
    }

    private static List<WriteResult> write(PumpRig rig, long offset, long dueAt) {
        return rig.store
                .write(List.of(rig.scheduleOp(offset, dueAt)))
                .orTimeout(10, TimeUnit.SECONDS)
                .join();
    }
}

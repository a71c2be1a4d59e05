package io.delaybridge.bridge.pump;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.bridge.store.ClaimedMessage;
import io.delaybridge.bridge.store.DelayStore;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.TestServers;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Claims look ahead: a message due within {@code lookAhead} is claimed before its due time, held by the pump, and
 * sent at its due time, never before. Redis runs on this host, so the host clock at each send can be compared with
 * the due time (a Redis time) directly.
 */
@ExtendWith(RealServersExtension.class)
class PumpLookAheadIT {

    @Test
    void messagesClaimedAheadAreSentAtTheirDueTimeInDueOrder(TestServers servers) throws Exception {
        try (PumpRig rig = new PumpRig(servers, "ahead", true)) {
            AtomicInteger claimedAhead = new AtomicInteger();
            DelayStore store = countingClaimsAhead(rig.store, claimedAhead);
            Pump pump = rig.pump(store, new PumpSettings(100, 30_000, 1_000, 1_000, 200), Clock.systemUTC());
            pump.start();
            try {
                pump.assign(List.of(0));
                long base = rig.store.now() + 1_000;
                List<Long> due = new ArrayList<>();
                for (int i = 0; i < 20; i++) {
                    due.add(base + 25L * i);
                    rig.schedule(i, due.get(i));
                }
                await().atMost(Duration.ofSeconds(10))
                        .until(() -> rig.producer.history().size() == 20);

                for (int n = 0; n < 20; n++) {
                    int offset = rig.producer.history().get(n).value()[0];
                    assertEquals(n, offset, "sent in due order");
                    long sentAt = rig.sentAtMillis.get(n);
                    assertTrue(
                            sentAt >= due.get(offset),
                            "message " + offset + " sent at " + sentAt + ", due " + due.get(offset));
                }
                assertTrue(claimedAhead.get() > 0, "claims took messages before they were due");
            } finally {
                pump.stop();
            }
        }
    }

    @Test
    void aSteadyStreamIsClaimedAndAckedInRoundsNotAMessageAtATime(TestServers servers) throws Exception {
        try (PumpRig rig = new PumpRig(servers, "rounds", true)) {
            AtomicInteger claims = new AtomicInteger();
            AtomicInteger acks = new AtomicInteger();
            DelayStore store = PumpRig.countingAcks(
                    PumpRig.interceptingClaims(rig.store, claim -> {
                        claims.incrementAndGet();
                        return claim.get();
                    }),
                    acks);
            // a look-ahead of 200 ms: rounds at most every 100 ms, each taking what falls due in the next 200 ms
            Pump pump = rig.pump(store, new PumpSettings(500, 30_000, 1_000, 1_000, 200), Clock.systemUTC());
            long base = rig.store.now() + 2_000;
            List<Long> due = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                due.add(base + 5L * i); // one due every 5 ms for half a second
                rig.schedule(i, due.get(i));
            }
            pump.start();
            try {
                pump.assign(List.of(0));
                await().atMost(Duration.ofSeconds(10))
                        .until(() -> rig.producer.history().size() == 100);
            } finally {
                pump.stop();
            }
            for (int n = 0; n < 100; n++) {
                int offset = rig.producer.history().get(n).value()[0];
                assertEquals(n, offset, "sent in due order");
                assertTrue(
                        rig.sentAtMillis.get(n) >= due.get(offset),
                        "message " + offset + " sent at " + rig.sentAtMillis.get(n) + ", due " + due.get(offset));
            }
            // claimed as each entered the look-ahead window, they took ~100 claims; in rounds, ~7 (one at start)
            assertTrue(claims.get() <= 15, claims.get() + " claims for 100 messages due over 500 ms");
            // acked as each producer answer came in, they took dozens of acks; gathered for half a look-ahead, ~6
            assertTrue(acks.get() <= 15, acks.get() + " acks for 100 messages delivered over 500 ms");
            assertEquals(0, rig.store.stats(0).inFlight(), "all acked");
            assertEquals(0, rig.store.stats(0).pending());
        }
    }

    @Test
    void aStopSendsWhatItHoldsAtItsDueTime(TestServers servers) throws Exception {
        try (PumpRig rig = new PumpRig(servers, "hold", true)) {
            Pump pump = rig.pump(rig.store, new PumpSettings(100, 30_000, 1_000, 1_000, 900), Clock.systemUTC());
            pump.start();
            long due;
            try {
                pump.assign(List.of(0));
                due = rig.store.now() + 600;
                rig.schedule(0, due);
                await().atMost(Duration.ofSeconds(5))
                        .until(() -> rig.store.stats(0).inFlight() == 1);
                assertTrue(rig.store.now() < due, "claimed ahead of its due time");
            } finally {
                pump.stop();
            }
            assertEquals(1, rig.producer.history().size(), "the held message was sent before the pump stopped");
            assertTrue(rig.sentAtMillis.get(0) >= due, "sent at " + rig.sentAtMillis.get(0) + ", due " + due);
            assertEquals(0, rig.store.stats(0).inFlight(), "and acknowledged");
            assertEquals(0, rig.store.stats(0).pending());
        }
    }

    /** The store, counting the messages that claims took before their due time (by Redis' clock at the claim). */
    private static DelayStore countingClaimsAhead(DelayStore store, AtomicInteger ahead) {
        return PumpRig.interceptingClaims(
                store,
                claim -> claim.get().thenApply(batch -> {
                    for (ClaimedMessage message : batch.messages()) {
                        if (batch.redisNow() < message.dueAt()) {
                            ahead.incrementAndGet();
                        }
                    }
                    return batch;
                }));
    }
}

package io.delaybridge.bridge.store;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The store contract's ownership side: a shard's epochs, what an owner with an old epoch can no longer do, and what a
 * new owner takes over, run by {@link DelayStoreContractIT} against each implementation.
 */
public interface StoreOwnershipContract extends StoreContract {

    @Test
    default void anOwnerWithAnOldEpochCanNoLongerChangeTheShard() {
        long now = store().now();
        writeOne(intakeRecord(0, 1, now - 1, "a"));
        writeOne(intakeRecord(0, 2, now - 1, "b"));
        long old = store().acquire(0);
        ClaimBatch heldBatch = store().claim(0, old, 1, 50);
        ClaimedMessage held = heldBatch.messages().get(0);
        long leaseEnd = heldBatch.redisNow() + 50;
        long current = store().acquire(0);
        assertTrue(current > old);

        ShardStats before = store().stats(0);
        assertThrows(StoreFencedException.class, () -> store().claim(0, old, 10, LEASE));
        assertThrows(StoreFencedException.class, () -> store().ack(0, old, List.of(held.ref())));
        assertThrows(StoreFencedException.class, () -> store().retry(0, old, held.ref(), now));
        await().atMost(DEADLINE).pollInterval(Duration.ofMillis(20)).until(() -> store().now() > leaseEnd);
        assertThrows(StoreFencedException.class, () -> store().reclaim(0, old, 10));
        StoreFencedException fenced = assertThrows(StoreFencedException.class, () -> store().claim(0, old, 1, LEASE));
        assertEquals(0, fenced.shard());
        assertEquals(before, store().stats(0), "nothing changed");

        assertEquals(0, store().reclaim(0, current, 10), "the new owner took the fenced owner's message at acquire");
        assertEquals(2, store().claim(0, current, 10, LEASE).messages().size());
    }

    @Test
    default void aNewOwnerGetsWhatFencedOwnersLeftInFlightAtOnce() {
        long now = store().now();
        writeOne(intakeRecord(1, 1, now - 1, "a"));
        writeOne(intakeRecord(1, 2, now - 1, "b"));
        writeOne(intakeRecord(1, 3, now + 60_000, "later"));
        long dead = store().acquire(1);
        List<ClaimedMessage> held = store().claim(1, dead, 10, LEASE).messages(); // a 30 s lease the owner never ends
        assertEquals(2, held.size());
        List<Long> wakes = new java.util.concurrent.CopyOnWriteArrayList<>();
        store().onWake((shard, dueAt) -> {
            if (shard == 1) {
                wakes.add(dueAt);
            }
        });

        long before = store().now();
        long current = store().acquire(1);
        long tookAt = store().now();
        assertEquals(
                new ShardStats(1, 3, 0, store().nextDueAt(1).orElseThrow()),
                store().stats(1),
                "nothing is left in flight");
        long dueAgain = store().nextDueAt(1).orElseThrow();
        assertTrue(dueAgain >= before && dueAgain <= tookAt, "due now, not when the lease ends: " + dueAgain);
        // the schedules above woke the shard for now - 1; the hand-over wakes it for the time it took the shard
        await().atMost(DEADLINE).until(() -> wakes.contains(dueAgain));

        List<ClaimedMessage> again = store().claim(1, current, 10, LEASE).messages();
        assertEquals(
                List.of(TOPIC + "-1-1", TOPIC + "-1-2"),
                again.stream().map(m -> m.ref().id()).toList());
        assertTrue(again.stream().allMatch(m -> m.attempt() == 2), "the lost attempt is counted");
        assertThrows(
                StoreFencedException.class,
                () -> store().ack(1, dead, List.of(held.get(0).ref())),
                "the fenced owner cannot ack");
        assertEquals(
                2,
                store().ack(1, current, again.stream().map(ClaimedMessage::ref).toList()));
    }

    @Test
    default void acquiringAShardWithNothingInFlightMovesNothing() {
        long now = store().now();
        writeOne(intakeRecord(3, 1, now + 60_000, "later"));
        store().acquire(3);
        long current = store().acquire(3);
        assertEquals(new ShardStats(3, 1, 0, now + 60_000), store().stats(3));
        assertTrue(store().claim(3, current, 10, LEASE).messages().isEmpty(), "nothing due early");
    }

    @Test
    default void epochsArePerShard() {
        long zero = store().acquire(0);
        store().acquire(1);
        store().acquire(1);
        store().claim(0, zero, 1, LEASE); // shard 1's owners do not fence shard 0's
        assertThrows(StoreFencedException.class, () -> store().claim(1, zero + 1_000, 1, LEASE));
    }
}

package io.delaybridge.bridge.store;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.bridge.store.DelayStore.Parked;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The store contract's pump side: claim, retry, hand-back, reclaim and wake-ups, run by {@link
 * DelayStoreContractIT} against each implementation; fencing is {@link StoreOwnershipContract}.
 *
 * <p>Time: due times are taken relative to {@link DelayStore#now()}, the store's clock; waits have deadlines.
 */
public interface StorePumpContract extends StoreContract {

    @Test
    default void claimNeverTakesAMessageEarly() {
        long due = store().now() + 1_000;
        writeOne(intakeRecord(1, 1, due, "later"));
        long epoch = store().acquire(1);

        ClaimBatch early = store().claim(1, epoch, 10, LEASE);
        assertTrue(early.messages().isEmpty(), "claimed at " + early.redisNow() + ", due " + due);
        assertEquals(due, early.nextDueAt());
        assertEquals(OptionalLong.of(due), store().nextDueAt(1));

        AtomicReference<ClaimBatch> claimed = new AtomicReference<>();
        await().atMost(DEADLINE).pollInterval(Duration.ofMillis(20)).until(() -> {
            ClaimBatch batch = store().claim(1, epoch, 10, LEASE);
            assertTrue(
                    batch.messages().isEmpty() || batch.redisNow() >= due,
                    "claimed at " + batch.redisNow() + ", due " + due);
            claimed.set(batch);
            return !batch.messages().isEmpty();
        });
        assertEquals(due, claimed.get().messages().get(0).dueAt());
    }

    @Test
    default void aLookAheadClaimTakesWhatFallsDueWithinItAndNothingLater() throws Exception {
        long now = store().now();
        write(intakeRecord(1, 1, now + 2_000, "soon"), intakeRecord(1, 2, now + 60_000, "later"));
        long epoch = store().acquire(1);
        assertTrue(store().claim(1, epoch, 10, LEASE).messages().isEmpty(), "without look-ahead nothing is due");

        ClaimBatch batch = store().claimAsync(1, epoch, 10, LEASE, 30_000).get(10, TimeUnit.SECONDS);
        assertEquals(List.of(TOPIC + "-1-1"), ids(batch));
        assertTrue(
                batch.redisNow() < batch.messages().get(0).dueAt(),
                "the claim tells the caller that the message is not due yet");
        assertEquals(now + 60_000, batch.nextDueAt());
        assertEquals(1, store().stats(1).inFlight());
    }

    @Test
    default void claimTakesEarliestFirstThenIntakeOffset() {
        long t = store().now() - 1_000;
        String explicit = explicitIdIn(1, "explicit");
        write(
                intakeRecord(1, 500, t, "500"),
                schedule(explicit, t, TOPIC + "/0/0", "explicit"),
                intakeRecord(1, 30, t, "30"),
                intakeRecord(1, 7_000_000_000L, t - 1, "early"),
                intakeRecord(1, 256, t, "256"),
                intakeRecord(1, 2, t + 500, "last"));
        ClaimBatch batch = store().claim(1, store().acquire(1), 10, LEASE);
        assertEquals(
                List.of(
                        TOPIC + "-1-7000000000",
                        TOPIC + "-1-30",
                        TOPIC + "-1-256",
                        TOPIC + "-1-500",
                        explicit,
                        TOPIC + "-1-2"),
                ids(batch));
    }

    @Test
    default void claimIsBoundedAndReportsWhatIsLeft() {
        long now = store().now();
        List<WriteOp> ops = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            ops.add(intakeRecord(0, i, now - 100 + i, "m" + i));
        }
        ops.add(intakeRecord(0, 99, now + 60_000, "future"));
        write(ops.toArray(WriteOp[]::new));
        long epoch = store().acquire(0);

        ClaimBatch first = store().claim(0, epoch, 3, LEASE);
        assertEquals(List.of(TOPIC + "-0-0", TOPIC + "-0-1", TOPIC + "-0-2"), ids(first));
        assertEquals(now - 100 + 3, first.nextDueAt());
        assertEquals(3, store().claim(0, epoch, 3, LEASE).messages().size());
        ClaimBatch last = store().claim(0, epoch, 3, LEASE);
        assertEquals(List.of(TOPIC + "-0-6"), ids(last));
        assertEquals(now + 60_000, last.nextDueAt());
        assertEquals(new ShardStats(0, 1, 7, now + 60_000), store().stats(0));
    }

    @Test
    default void claimOfAnEmptyShardReportsNothingNext() {
        ClaimBatch batch = store().claim(2, store().acquire(2), 10, LEASE);
        assertTrue(batch.messages().isEmpty());
        assertFalse(batch.hasNext());
        assertEquals(-1, batch.nextDueAt());
    }

    // ------------------------------------------------------------------------------------------------ retry

    @Test
    default void retryDelaysTheMessageAndCountsTheAttempt() {
        long now = store().now();
        writeOne(intakeRecord(3, 1, now - 1, "flaky"));
        long epoch = store().acquire(3);
        ClaimedMessage first = store().claim(3, epoch, 10, LEASE).messages().get(0);
        assertEquals(1, first.attempt());

        long retryAt = store().now() + 1_000;
        assertTrue(store().retry(3, epoch, first.ref(), retryAt));
        assertEquals(new ShardStats(3, 1, 0, retryAt), store().stats(3));
        assertTrue(store().claim(3, epoch, 10, LEASE).messages().isEmpty(), "not before retryAt");

        AtomicReference<ClaimedMessage> second = new AtomicReference<>();
        await().atMost(DEADLINE).pollInterval(Duration.ofMillis(20)).until(() -> {
            List<ClaimedMessage> claimed = store().claim(3, epoch, 10, LEASE).messages();
            claimed.stream().findFirst().ifPresent(second::set);
            return !claimed.isEmpty();
        });
        assertEquals(2, second.get().attempt());
        assertEquals(retryAt, second.get().dueAt());
        assertEquals("flaky", body(second.get()));

        assertTrue(store().retry(3, epoch, second.get().ref(), now - 1));
        assertEquals(3, store().claim(3, epoch, 10, LEASE).messages().get(0).attempt());
    }

    @Test
    default void retryOfAMessageNotInFlightDoesNothing() {
        long now = store().now();
        writeOne(intakeRecord(3, 2, now + 60_000, "waiting"));
        long epoch = store().acquire(3);
        assertFalse(store().retry(3, epoch, router().ref(TOPIC + "-3-2"), now));
        assertFalse(store().retry(3, epoch, router().ref(TOPIC + "-3-999"), now));
        assertEquals(new ShardStats(3, 1, 0, now + 60_000), store().stats(3));
    }

    // ------------------------------------------------------------------------------------------------ hand-back

    @Test
    default void handBackReturnsMessagesAtTheirOwnDueTimeWithoutCountingAnAttempt() throws Exception {
        long now = store().now();
        writeOne(intakeRecord(3, 1, now - 500, "older"));
        writeOne(intakeRecord(3, 2, now - 100, "younger"));
        long epoch = store().acquire(3);
        List<ClaimedMessage> claimed = store().claim(3, epoch, 10, LEASE).messages();
        assertEquals(2, claimed.size());
        assertEquals(2, store().handBackAsync(3, epoch, claimed).get(5, TimeUnit.SECONDS));
        assertEquals(new ShardStats(3, 2, 0, now - 500), store().stats(3), "due again at the older one's due time");
        List<ClaimedMessage> again = store().claim(3, epoch, 10, LEASE).messages();
        assertEquals(
                List.of("older", "younger"), again.stream().map(m -> body(m)).toList(), "oldest first still");
        assertEquals(List.of(1, 1), again.stream().map(ClaimedMessage::attempt).toList(), "no attempt counted");
        assertEquals(
                List.of(now - 500, now - 100),
                again.stream().map(ClaimedMessage::dueAt).toList());

        store().ack(3, epoch, List.of(again.get(0).ref()));
        assertEquals(
                0,
                store().handBackAsync(3, epoch, List.of(again.get(0))).get(5, TimeUnit.SECONDS),
                "an acked message is not handed back");
        long newer = store().acquire(3);
        java.util.concurrent.ExecutionException fenced = assertThrows(
                java.util.concurrent.ExecutionException.class,
                () -> store().handBackAsync(3, epoch, List.of(again.get(1))).get(5, TimeUnit.SECONDS));
        assertTrue(fenced.getCause() instanceof StoreFencedException, fenced.toString());
        assertTrue(newer > epoch);
    }

    @Test
    default void aParkedMessageIsClaimedOnlyFromItsTimeWithItsOwnDueTimeAndAttempts() throws Exception {
        long now = store().now();
        String id = explicitIdIn(3, "parked");
        writeOne(schedule(id, now - 500, TOPIC + "/3/1", "later", now - 1_000));
        writeOne(intakeRecord(3, 2, now - 100, "sooner"));
        long epoch = store().acquire(3);
        List<ClaimedMessage> claimed = store().claim(3, epoch, 10, LEASE).messages();
        assertEquals(2, claimed.size());
        assertTrue(store().retry(3, epoch, claimed.get(1).ref(), now - 100), "one earlier attempt");
        ClaimedMessage retried = store().claim(3, epoch, 10, LEASE).messages().get(0);
        long soon = store().now() + 300;
        assertEquals(
                2,
                store().parkAsync(
                                3, epoch, List.of(new Parked(claimed.get(0), soon + 60_000), new Parked(retried, soon)))
                        .get(5, TimeUnit.SECONDS));
        assertEquals(new ShardStats(3, 2, 0, soon), store().stats(3), "due at the time they were parked until");
        ClaimBatch early = store().claim(3, epoch, 10, LEASE);
        assertTrue(early.redisNow() >= soon || early.messages().isEmpty(), "not claimable before its time");

        List<ClaimedMessage> back = new ArrayList<>(early.messages());
        await().atMost(DEADLINE).until(() -> {
            back.addAll(store().claim(3, epoch, 10, LEASE).messages());
            return !back.isEmpty();
        });
        assertEquals(List.of("sooner"), back.stream().map(m -> body(m)).toList());
        assertEquals(now - 100, back.get(0).dueAt(), "claimed with the due time it had");
        assertEquals(2, back.get(0).attempt(), "no attempt counted, the earlier one kept");
        assertTrue(store().retry(3, epoch, back.get(0).ref(), now), "its attempts are a count again");
        assertEquals(3, store().claim(3, epoch, 10, LEASE).messages().get(0).attempt());

        writeOne(schedule(id, now - 50, TOPIC + "/3/3", "later", now)); // replaced while parked: its new due time
        ClaimedMessage replaced = store().claim(3, epoch, 10, LEASE).messages().get(0);
        assertEquals(now - 50, replaced.dueAt());
        assertEquals(1, replaced.attempt());
    }

    // ------------------------------------------------------------------------------------------------ reclaim

    @Test
    default void reclaimReturnsMessagesWhoseLeaseExpired() {
        long now = store().now();
        writeOne(intakeRecord(2, 1, now - 1, "orphan"));
        writeOne(intakeRecord(2, 2, now - 1, "held"));
        long epoch = store().acquire(2);
        ClaimedMessage orphan = store().claim(2, epoch, 1, 1_000).messages().get(0);
        assertEquals(TOPIC + "-2-1", orphan.ref().id());
        store().claim(2, epoch, 1, LEASE);

        assertEquals(0, store().reclaim(2, epoch, 10), "the lease has not expired yet");
        await().atMost(DEADLINE).pollInterval(Duration.ofMillis(20)).until(() -> store().reclaim(2, epoch, 10) == 1);
        assertEquals(new ShardStats(2, 1, 1, store().nextDueAt(2).orElseThrow()), store().stats(2));

        ClaimedMessage again = store().claim(2, epoch, 10, LEASE).messages().get(0);
        assertEquals(TOPIC + "-2-1", again.ref().id());
        assertEquals(2, again.attempt());
        assertEquals("orphan", body(again));
        assertEquals(0, store().reclaim(2, epoch, 10));
    }

    @Test
    default void reclaimIsBounded() {
        long now = store().now();
        for (int i = 0; i < 5; i++) {
            writeOne(intakeRecord(1, i, now - 1, "m"));
        }
        long epoch = store().acquire(1);
        ClaimBatch claimed = store().claim(1, epoch, 10, 50);
        assertEquals(5, claimed.messages().size());
        long leaseEnd = claimed.redisNow() + 50;
        await().atMost(DEADLINE).pollInterval(Duration.ofMillis(20)).until(() -> store().now() > leaseEnd);
        assertEquals(2, store().reclaim(1, epoch, 2));
        assertEquals(3, store().reclaim(1, epoch, 10));
        assertEquals(new ShardStats(1, 5, 0, store().nextDueAt(1).orElseThrow()), store().stats(1));
    }

    @Test
    default void reclaimAllReturnsInFlightMessagesWhateverTheirLease() {
        long now = store().now();
        for (int i = 0; i < 3; i++) {
            writeOne(intakeRecord(3, i, now - 1, "lost-" + i));
        }
        long epoch = store().acquire(3);
        assertEquals(3, store().claim(3, epoch, 10, LEASE).messages().size(), "a claim whose answer never arrived");
        assertEquals(0, store().reclaim(3, epoch, 10), "their leases run for another " + LEASE + " ms");

        assertEquals(2, store().reclaimAll(3, epoch, 2));
        assertEquals(1, store().reclaimAll(3, epoch, 10));
        assertEquals(0, store().reclaimAll(3, epoch, 10));
        assertEquals(new ShardStats(3, 3, 0, store().nextDueAt(3).orElseThrow()), store().stats(3));
        List<ClaimedMessage> again = store().claim(3, epoch, 10, LEASE).messages();
        assertEquals(
                List.of("lost-0", "lost-1", "lost-2"),
                again.stream().map(m -> body(m)).toList(),
                "claimable at once, in their intake order");

        long newer = store().acquire(3);
        assertThrows(StoreFencedException.class, () -> store().reclaimAll(3, epoch, 10));
        assertTrue(newer > epoch);
    }

    // ------------------------------------------------------------------------------------------------ wake-ups

    @Test
    default void wakesWhenAnEarlierMessageArrivesAndNotForALaterOne() throws InterruptedException {
        BlockingQueue<long[]> wakes = new LinkedBlockingQueue<>();
        store().onWake((shard, dueAt) -> wakes.add(new long[] {shard, dueAt}));
        long now = store().now();

        writeOne(intakeRecord(2, 1, now + 50_000, "first"));
        long[] first = wakes.poll(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
        assertArrayEquals(new long[] {2, now + 50_000}, first, "the first message is the earliest");

        writeOne(intakeRecord(2, 2, now + 90_000, "later")); // must not wake
        writeOne(intakeRecord(2, 3, now + 10_000, "earlier"));
        long[] second = wakes.poll(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
        // wake-ups arrive in publish order: had the later message woken, its wake-up would come first
        assertArrayEquals(new long[] {2, now + 10_000}, second);

        writeOne(intakeRecord(1, 1, now + 70_000, "other shard"));
        assertArrayEquals(new long[] {1, now + 70_000}, wakes.poll(DEADLINE.toMillis(), TimeUnit.MILLISECONDS));
        assertTrue(wakes.isEmpty());
    }

    @Test
    default void retryToAnEarlierTimeWakes() {
        long now = store().now();
        writeOne(intakeRecord(3, 1, now - 1, "a"));
        writeOne(intakeRecord(3, 2, now + 60_000, "b"));
        long epoch = store().acquire(3);
        ClaimedMessage message = store().claim(3, epoch, 1, LEASE).messages().get(0);
        List<Long> wakes = new java.util.concurrent.CopyOnWriteArrayList<>();
        store().onWake((shard, dueAt) -> {
            if (shard == 3) {
                wakes.add(dueAt);
            }
        });

        assertTrue(store().retry(3, epoch, message.ref(), now + 1_000));
        // wake-ups of the schedules above may still arrive: wait for this one
        await().atMost(DEADLINE).until(() -> wakes.contains(now + 1_000));
    }
}

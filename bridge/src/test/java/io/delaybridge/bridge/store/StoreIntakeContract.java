package io.delaybridge.bridge.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The store contract's intake side: schedule, replacement and the order of versions, batches, the express path's
 * checks and position marks, run by {@link DelayStoreContractIT} against each implementation. Cancels have their own
 * part ({@link StoreCancelContract}).
 *
 * <p>Time: due times are taken relative to {@link DelayStore#now()}, the store's clock; waits have deadlines.
 */
public interface StoreIntakeContract extends StoreContract {

    @Test
    default void scheduledMessageIsClaimedAckedAndGone() {
        long now = store().now();
        assertEquals(WriteResult.STORED, writeOne(intakeRecord(2, 17, now - 1, "order 42")));
        long epoch = store().acquire(2);

        ClaimBatch batch = store().claim(2, epoch, 10, LEASE);
        assertEquals(1, batch.messages().size());
        ClaimedMessage message = batch.messages().get(0);
        assertEquals(TOPIC + "-2-17", message.ref().id());
        assertArrayEquals(router().member(TOPIC + "-2-17"), message.ref().member());
        assertEquals(now - 1, message.dueAt());
        assertEquals(1, message.attempt());
        assertEquals("order 42", body(message));
        assertFalse(batch.hasNext());
        assertTrue(batch.redisNow() >= now);
        assertEquals(new ShardStats(2, 0, 1, -1), store().stats(2));

        assertEquals(1, store().ack(2, epoch, List.of(message.ref())));
        assertEquals(new ShardStats(2, 0, 0, -1), store().stats(2));
        assertTrue(store().claim(2, epoch, 10, LEASE).messages().isEmpty());
        assertEquals(0, store().ack(2, epoch, List.of(message.ref())), "a second ack finds nothing");
        // the payload is gone: the same record stored again is new, not a duplicate
        assertEquals(WriteResult.STORED, writeOne(intakeRecord(2, 17, now - 1, "order 42")));
    }

    @Test
    default void sameIntakeRecordTwiceIsOneMessage() {
        long now = store().now();
        WriteOp.Schedule record = intakeRecord(1, 5, now + 60_000, "first");
        assertEquals(List.of(WriteResult.STORED, WriteResult.DUPLICATE), write(record, record));
        assertEquals(WriteResult.DUPLICATE, writeOne(record));
        WriteOp.Schedule explicit = schedule("order-7", now + 60_000, TOPIC + "/3/99", "x");
        assertEquals(List.of(WriteResult.STORED, WriteResult.DUPLICATE), write(explicit, explicit));
        assertEquals(1, store().stats(1).pending());
        assertEquals(1, store().stats(router().shardOf("order-7")).pending());
    }

    @Test
    default void duplicateOfAMessageInFlightChangesNothing() {
        long now = store().now();
        WriteOp.Schedule record = intakeRecord(0, 3, now - 5, "once");
        writeOne(record);
        long epoch = store().acquire(0);
        ClaimedMessage message = store().claim(0, epoch, 10, LEASE).messages().get(0);

        assertEquals(WriteResult.DUPLICATE, writeOne(record));
        assertEquals(new ShardStats(0, 0, 1, -1), store().stats(0));
        assertEquals(1, store().ack(0, epoch, List.of(message.ref())));
    }

    @Test
    default void anotherRecordWithTheSameIdReplacesThePendingMessage() {
        long now = store().now();
        assertEquals(WriteResult.STORED, writeOne(schedule("order-42", now + 60_000, TOPIC + "/1/10", "v1")));
        assertEquals(WriteResult.REPLACED, writeOne(schedule("order-42", now - 1, TOPIC + "/3/20", "v2")));
        int shard = router().shardOf("order-42");
        assertEquals(1, store().stats(shard).pending());

        ClaimBatch batch = store().claim(shard, store().acquire(shard), 10, LEASE);
        assertEquals(List.of("order-42"), ids(batch));
        assertEquals("v2", body(batch.messages().get(0)));
        assertEquals(now - 1, batch.messages().get(0).dueAt());
    }

    @Test
    default void anExplicitIdEqualToADefaultIdReplacesThatMessage() {
        long now = store().now();
        writeOne(intakeRecord(2, 8, now + 60_000, "original"));
        // a producer reschedules the record at partition 2, offset 8 by naming its default id
        assertEquals(WriteResult.REPLACED, writeOne(schedule(TOPIC + "-2-8", now - 1, TOPIC + "/0/1", "moved")));
        ClaimBatch batch = store().claim(2, store().acquire(2), 10, LEASE);
        assertEquals("moved", body(batch.messages().get(0)));
    }

    @Test
    default void replacingAMessageInFlightKeepsTheNewVersion() {
        long now = store().now();
        writeOne(schedule("job-1", now - 10, TOPIC + "/0/1", "old"));
        int shard = router().shardOf("job-1");
        long epoch = store().acquire(shard);
        ClaimedMessage old = store().claim(shard, epoch, 10, LEASE).messages().get(0);

        assertEquals(WriteResult.REPLACED, writeOne(schedule("job-1", now - 5, TOPIC + "/0/2", "new")));
        assertEquals(new ShardStats(shard, 1, 0, now - 5), store().stats(shard));
        assertEquals(0, store().ack(shard, epoch, List.of(old.ref())), "the old delivery's ack deletes nothing");
        assertFalse(store().retry(shard, epoch, old.ref(), now + 1_000), "the old delivery's retry moves nothing");

        ClaimedMessage fresh = store().claim(shard, epoch, 10, LEASE).messages().get(0);
        assertEquals("new", body(fresh));
        assertEquals(1, fresh.attempt());
    }

    @Test
    default void anOlderRecordReadAfterANewerOneOfItsIdIsDropped() {
        long now = store().now();
        // the reschedule (record time 2000) came in on a partition read first; the version it replaces (1000) on a
        // lagging one
        assertEquals(WriteResult.STORED, writeOne(schedule("order-9", now - 1, TOPIC + "/3/40", "newer", 2_000)));
        assertEquals(WriteResult.SUPERSEDED, writeOne(schedule("order-9", now - 1, TOPIC + "/0/7", "older", 1_000)));
        assertEquals(WriteResult.REPLACED, writeOne(schedule("order-9", now - 1, TOPIC + "/1/2", "newest", 3_000)));
        assertEquals("newest", pendingBody("order-9"));
    }

    @Test
    default void aReplacedVersionReadAgainAfterACrashDoesNotComeBack() {
        long now = store().now();
        WriteOp.Schedule first = schedule("order-10", now + 60_000, TOPIC + "/0/5", "first", 1_000);
        writeOne(first);
        assertEquals(WriteResult.REPLACED, writeOne(schedule("order-10", now - 1, TOPIC + "/2/9", "second", 1_500)));
        // the intake crashed before committing the first record's offset and reads it again
        assertEquals(WriteResult.SUPERSEDED, writeOne(first));
        int shard = router().shardOf("order-10");
        assertEquals(new ShardStats(shard, 1, 0, now - 1), store().stats(shard), "the second version's due time stays");
        assertEquals("second", pendingBody("order-10"));
    }

    @Test
    default void recordsOfOnePartitionWithTheSameTimestampAreOrderedByOffset() {
        long now = store().now();
        // one producer batch gets one LogAppendTime: the offsets still order it
        writeOne(schedule("order-11", now - 1, TOPIC + "/1/7", "offset 7", 5_000));
        assertEquals(
                WriteResult.SUPERSEDED, writeOne(schedule("order-11", now - 1, TOPIC + "/1/6", "offset 6", 5_000)));
        assertEquals(WriteResult.REPLACED, writeOne(schedule("order-11", now - 1, TOPIC + "/1/8", "offset 8", 5_000)));
        assertEquals("offset 8", pendingBody("order-11"));
    }

    @Test
    default void aLaterTimestampIsNewerWhateverItsOffset() {
        long now = store().now();
        // the intake topic was deleted and created again: its offsets start over
        writeOne(schedule("order-14", now - 1, TOPIC + "/1/900", "before the topic was recreated", 5_000));
        assertEquals(WriteResult.REPLACED, writeOne(schedule("order-14", now - 1, TOPIC + "/1/3", "after", 9_000)));
        assertEquals("after", pendingBody("order-14"));
    }

    @Test
    default void aDefaultIdsOwnRecordReadAgainDoesNotUndoItsReschedule() {
        long now = store().now();
        WriteOp.Schedule own = schedule(TOPIC + "-2-5", now + 60_000, TOPIC + "/2/5", "own", 1_000);
        writeOne(own);
        // a later record of the same partition and producer batch (the same LogAppendTime) reschedules it by its id
        assertEquals(
                WriteResult.REPLACED,
                writeOne(schedule(TOPIC + "-2-5", now - 1, TOPIC + "/2/9", "rescheduled", 1_000)));
        // after a crash the intake reads both again
        assertEquals(WriteResult.SUPERSEDED, writeOne(own));
        assertEquals(
                WriteResult.DUPLICATE,
                writeOne(schedule(TOPIC + "-2-5", now - 1, TOPIC + "/2/9", "rescheduled", 1_000)));
        assertEquals("rescheduled", pendingBody(TOPIC + "-2-5"));
    }

    @Test
    default void aRecordWithoutATimestampIsOrderedByItsOffsetAlone() {
        long now = store().now();
        writeOne(schedule("order-15", now - 1, TOPIC + "/0/7", "offset 7", 5_000));
        // Kafka's -1: the oldest message format had no timestamps
        assertEquals(WriteResult.SUPERSEDED, writeOne(schedule("order-15", now - 1, TOPIC + "/0/6", "offset 6", -1)));
        assertEquals(
                WriteResult.REPLACED, writeOne(schedule("order-15", now - 1, TOPIC + "/3/1", "another partition", -1)));
        assertEquals("another partition", pendingBody("order-15"));
    }

    @Test
    default void withoutAnOrderTheRecordReadLastWins() {
        long now = store().now();
        writeOne(schedule("order-12", now - 1, TOPIC + "/0/1", "a", 1_000));
        assertEquals(
                WriteResult.REPLACED, writeOne(schedule("order-12", now - 1, TOPIC + "/1/1", "same instant", 1_000)));
        assertEquals(WriteResult.REPLACED, writeOne(schedule("order-12", now - 1, TOPIC + "/2/1", "no timestamp")));
        assertEquals(
                WriteResult.REPLACED,
                writeOne(schedule("order-12", now - 1, TOPIC + "/3/1", "older", 500)),
                "the stored version's time is not known");
        assertEquals("older", pendingBody("order-12"));
    }

    @Test
    default void anOlderRecordDoesNotReplaceAVersionInFlight() {
        long now = store().now();
        writeOne(schedule("job-2", now - 10, TOPIC + "/2/3", "newer", 2_000));
        int shard = router().shardOf("job-2");
        long epoch = store().acquire(shard);
        ClaimedMessage inFlight =
                store().claim(shard, epoch, 10, LEASE).messages().get(0);
        assertEquals(WriteResult.SUPERSEDED, writeOne(schedule("job-2", now - 5, TOPIC + "/0/3", "older", 1_000)));
        assertEquals(1, store().ack(shard, epoch, List.of(inFlight.ref())), "the lease is kept: its ack deletes it");
        assertEquals(0, store().stats(shard).pending());
    }

    @Test
    default void aRecordStoredWithoutItsTimestampIsStillKnownWhenReadAgainWithIt() {
        long now = store().now();
        // stored by a bridge whose stored values did not carry the record timestamp yet
        writeOne(schedule("order-13", now - 1, TOPIC + "/0/4", "once"));
        assertEquals(WriteResult.DUPLICATE, writeOne(schedule("order-13", now - 1, TOPIC + "/0/4", "once", 1_000)));
    }

    // ------------------------------------------------------------------------------------------------ batches

    @Test
    default void aBatchAnswersInInputOrderAcrossShards() {
        long now = store().now();
        List<WriteResult> results = write(
                intakeRecord(0, 1, now + 60_000, "a"),
                intakeRecord(1, 1, now + 60_000, "b"),
                new WriteOp.Cancel(TOPIC + "-0-1"),
                intakeRecord(1, 1, now + 60_000, "b"),
                new WriteOp.Cancel("nothing"),
                schedule("order-1", now + 60_000, TOPIC + "/2/5", "c"),
                schedule("order-1", now + 60_000, TOPIC + "/3/6", "d"));
        assertEquals(
                List.of(
                        WriteResult.STORED,
                        WriteResult.STORED,
                        WriteResult.CANCELLED,
                        WriteResult.DUPLICATE,
                        WriteResult.NOT_FOUND,
                        WriteResult.STORED,
                        WriteResult.REPLACED),
                results);
        assertEquals(List.of(), write());
    }

    @Test
    default void writesFromManyThreadsAtOnceAllLand() throws Exception {
        long now = store().now();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<CompletableFuture<List<WriteResult>>> futures = new ArrayList<>();
            for (int batch = 0; batch < 40; batch++) {
                int b = batch;
                futures.add(CompletableFuture.supplyAsync(
                        () -> {
                            List<WriteOp> ops = new ArrayList<>();
                            for (int i = 0; i < 25; i++) {
                                ops.add(intakeRecord(b % SHARDS, b * 100L + i, now + 60_000, "m"));
                            }
                            return store().write(ops).join();
                        },
                        pool));
            }
            for (CompletableFuture<List<WriteResult>> f : futures) {
                List<WriteResult> results = f.get(30, TimeUnit.SECONDS);
                assertEquals(25, results.size());
                assertTrue(results.stream().allMatch(r -> r == WriteResult.STORED), results.toString());
            }
        } finally {
            pool.shutdownNow();
        }
        long total = 0;
        for (int shard = 0; shard < SHARDS; shard++) {
            total += store().stats(shard).pending();
        }
        assertEquals(1_000, total);
    }

    @Test
    default void expressChecksPassOnlyWhatTheStoreDoesNotKnowAndNothingStoredCanBeOvertakenBy() throws Exception {
        long now = store().now();
        String cancelled = TOPIC + "-3-9";
        // the writes and the checks in one batch: the checks see the writes before them
        WrittenBatch batch = store().write(
                        List.of(
                                intakeRecord(1, 5, now + 1_000, "parked later"),
                                intakeRecord(2, 3, now - 5, "parked due"),
                                new WriteOp.Cancel(cancelled, now, now - 3_600_000)),
                        List.of(),
                        List.of(
                                new ExpressCheck(TOPIC + "-0-10", now - 1),
                                new ExpressCheck(TOPIC + "-1-6", now),
                                new ExpressCheck(TOPIC + "-1-7", now + 1_000),
                                new ExpressCheck(TOPIC + "-2-3", now + 100_000),
                                new ExpressCheck(cancelled, now),
                                new ExpressCheck(TOPIC + "-3-10", now)))
                .get(10, TimeUnit.SECONDS);
        assertEquals(List.of(WriteResult.STORED, WriteResult.STORED, WriteResult.NOT_FOUND), batch.results());
        assertTrue(batch.passed().get(0), "an empty shard");
        assertTrue(batch.passed().get(1), "due before everything its shard holds");
        assertFalse(batch.passed().get(2), "the same due time as a stored message: parks, keeping their order");
        assertFalse(batch.passed().get(3), "the store holds the id (and the check comes after the write)");
        assertFalse(batch.passed().get(4), "a remembered cancel of the id");
        assertTrue(batch.passed().get(5), "a cancel of another id");
        assertTrue(Math.abs(batch.redisNow() - now) < 5_000, "Redis' clock: " + batch.redisNow());

        long epoch = store().acquire(2);
        assertEquals(1, store().claim(2, epoch, 10, LEASE).messages().size());
        WrittenBatch inFlight = store().write(
                        List.of(), List.of(), List.of(new ExpressCheck(TOPIC + "-2-99", now - 100)))
                .get(10, TimeUnit.SECONDS);
        assertFalse(inFlight.passed().get(0), "a message of the shard is in flight");
    }

    // ------------------------------------------------------------------------------------------- position marks

    @Test
    default void positionMarksAdvanceAndAPositionBelowTheExpectedOneIsAGap() throws Exception {
        long due = store().now() + 3_600_000;
        String explicit = explicitIdIn(3, "elsewhere");
        store().write(
                        List.of(intakeRecord(1, 0, due, "a"), schedule(explicit, due, TOPIC + "/1/1", "b")),
                        List.of(
                                new PositionMark(1, PositionMark.UNKNOWN, 2),
                                new PositionMark(2, PositionMark.UNKNOWN, 5)))
                .get(10, TimeUnit.SECONDS);
        assertEquals(java.util.Map.of(1, 2L, 2, 5L), store().positions(List.of(0, 1, 2)), "partition 0 has no mark");

        // the intake believes the store holds partition 1 up to 9: it does not (as after a fail-over that lost it)
        java.util.concurrent.ExecutionException gap = assertThrows(
                java.util.concurrent.ExecutionException.class,
                () -> store().write(
                                List.of(intakeRecord(1, 9, due, "c")),
                                List.of(new PositionMark(1, 9, 10), new PositionMark(2, 5, 6)))
                        .get(10, TimeUnit.SECONDS));
        assertEquals(List.of(new StoreGapException.Gap(1, 2, 9)), ((StoreGapException) gap.getCause()).gaps());
        assertEquals(
                java.util.Map.of(1, 2L, 2, 6L),
                store().positions(List.of(1, 2)),
                "the gap's partition stays where it was, the other one moves on");
        assertEquals(List.of(), store().write(List.of(), List.of()).get(10, TimeUnit.SECONDS));
    }
}

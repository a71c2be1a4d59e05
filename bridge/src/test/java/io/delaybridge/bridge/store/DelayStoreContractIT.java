package io.delaybridge.bridge.store;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every {@link DelayStore} must have, run against each implementation by a subclass that provides a
 * fresh, empty store for intake topic {@value #TOPIC} with {@value #SHARDS} shards.
 *
 * <p>Time: due times are taken relative to {@link DelayStore#now()}, the store's clock; waits have deadlines.
 */
public abstract class DelayStoreContractIT {

    protected static final String TOPIC = "delay-intake";
    protected static final int SHARDS = 4;
    protected static final long LEASE = 30_000;
    protected static final Duration DEADLINE = Duration.ofSeconds(10);

    protected final ShardRouter router = new ShardRouter(TOPIC, SHARDS);
    protected DelayStore store;

    /** A new store over empty data: intake topic {@link #TOPIC}, {@link #SHARDS} shards. */
    protected abstract DelayStore newStore();

    @BeforeEach
    void openStore() {
        store = newStore();
    }

    @AfterEach
    void closeStore() {
        if (store != null) {
            store.close();
        }
    }

    @Test
    void expressChecksPassOnlyWhatTheStoreDoesNotKnowAndNothingStoredCanBeOvertakenBy() throws Exception {
        long now = store.now();
        String cancelled = TOPIC + "-3-9";
        // the writes and the checks in one batch: the checks see the writes before them
        WrittenBatch batch = store.write(List.of(
                intakeRecord(1, 5, now + 1_000, "parked later"),
                intakeRecord(2, 3, now - 5, "parked due"),
                new WriteOp.Cancel(cancelled, now, now - 3_600_000)), List.of(), List.of(
                new ExpressCheck(TOPIC + "-0-10", now - 1),
                new ExpressCheck(TOPIC + "-1-6", now),
                new ExpressCheck(TOPIC + "-1-7", now + 1_000),
                new ExpressCheck(TOPIC + "-2-3", now + 100_000),
                new ExpressCheck(cancelled, now),
                new ExpressCheck(TOPIC + "-3-10", now))).get(10, TimeUnit.SECONDS);
        assertEquals(List.of(WriteResult.STORED, WriteResult.STORED, WriteResult.NOT_FOUND), batch.results());
        assertTrue(batch.passed().get(0), "an empty shard");
        assertTrue(batch.passed().get(1), "due before everything its shard holds");
        assertFalse(batch.passed().get(2), "the same due time as a stored message: parks, keeping their order");
        assertFalse(batch.passed().get(3), "the store holds the id (and the check comes after the write)");
        assertFalse(batch.passed().get(4), "a remembered cancel of the id");
        assertTrue(batch.passed().get(5), "a cancel of another id");
        assertTrue(Math.abs(batch.redisNow() - now) < 5_000, "Redis' clock: " + batch.redisNow());

        long epoch = store.acquire(2);
        assertEquals(1, store.claim(2, epoch, 10, LEASE).messages().size());
        WrittenBatch inFlight = store.write(List.of(), List.of(), List.of(new ExpressCheck(TOPIC + "-2-99", now - 100)))
                .get(10, TimeUnit.SECONDS);
        assertFalse(inFlight.passed().get(0), "a message of the shard is in flight");
    }

    // ------------------------------------------------------------------------------------------------ helpers

    protected static byte[] envelope(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    protected static WriteOp.Schedule schedule(String id, long dueAt, String origin, String body) {
        return new WriteOp.Schedule(id, dueAt, origin, envelope(body));
    }

    /** A default-form id and its own origin, on intake partition {@code partition}. */
    protected static WriteOp.Schedule intakeRecord(int partition, long offset, long dueAt, String body) {
        return schedule(TOPIC + "-" + partition + "-" + offset, dueAt, TOPIC + "/" + partition + "/" + offset, body);
    }

    protected List<WriteResult> write(WriteOp... ops) {
        try {
            return store.write(List.of(ops)).get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("write failed", e);
        }
    }

    protected WriteResult writeOne(WriteOp op) {
        return write(op).get(0);
    }

    @Test
    void positionMarksAdvanceAndAPositionBelowTheExpectedOneIsAGap() throws Exception {
        long due = store.now() + 3_600_000;
        String explicit = explicitIdIn(3, "elsewhere");
        store.write(List.of(intakeRecord(1, 0, due, "a"), schedule(explicit, due, TOPIC + "/1/1", "b")),
                List.of(new PositionMark(1, PositionMark.UNKNOWN, 2), new PositionMark(2, PositionMark.UNKNOWN, 5)))
                .get(10, TimeUnit.SECONDS);
        assertEquals(java.util.Map.of(1, 2L, 2, 5L), store.positions(List.of(0, 1, 2)), "partition 0 has no mark");

        // the intake believes the store holds partition 1 up to 9: it does not (as after a fail-over that lost it)
        java.util.concurrent.ExecutionException gap = assertThrows(java.util.concurrent.ExecutionException.class,
                () -> store.write(List.of(intakeRecord(1, 9, due, "c")), List.of(new PositionMark(1, 9, 10),
                        new PositionMark(2, 5, 6))).get(10, TimeUnit.SECONDS));
        assertEquals(List.of(new StoreGapException.Gap(1, 2, 9)), ((StoreGapException) gap.getCause()).gaps());
        assertEquals(java.util.Map.of(1, 2L, 2, 6L), store.positions(List.of(1, 2)),
                "the gap's partition stays where it was, the other one moves on");
        assertEquals(List.of(), store.write(List.of(), List.of()).get(10, TimeUnit.SECONDS));
    }

    /** An explicit id that the router places in {@code shard}. */
    protected String explicitIdIn(int shard, String base) {
        for (int i = 0; ; i++) {
            String id = base + "-" + i;
            if (router.shardOf(id) == shard) {
                return id;
            }
        }
    }

    private static List<String> ids(ClaimBatch batch) {
        return batch.messages().stream().map(m -> m.ref().id()).toList();
    }

    private static String body(ClaimedMessage message) {
        return new String(message.envelope(), StandardCharsets.UTF_8);
    }

    // ------------------------------------------------------------------------------------------------ schedule

    @Test
    void scheduledMessageIsClaimedAckedAndGone() {
        long now = store.now();
        assertEquals(WriteResult.STORED, writeOne(intakeRecord(2, 17, now - 1, "order 42")));
        long epoch = store.acquire(2);

        ClaimBatch batch = store.claim(2, epoch, 10, LEASE);
        assertEquals(1, batch.messages().size());
        ClaimedMessage message = batch.messages().get(0);
        assertEquals(TOPIC + "-2-17", message.ref().id());
        assertArrayEquals(router.member(TOPIC + "-2-17"), message.ref().member());
        assertEquals(now - 1, message.dueAt());
        assertEquals(1, message.attempt());
        assertEquals("order 42", body(message));
        assertFalse(batch.hasNext());
        assertTrue(batch.redisNow() >= now);
        assertEquals(new ShardStats(2, 0, 1, -1), store.stats(2));

        assertEquals(1, store.ack(2, epoch, List.of(message.ref())));
        assertEquals(new ShardStats(2, 0, 0, -1), store.stats(2));
        assertTrue(store.claim(2, epoch, 10, LEASE).messages().isEmpty());
        assertEquals(0, store.ack(2, epoch, List.of(message.ref())), "a second ack finds nothing");
        // the payload is gone: the same record stored again is new, not a duplicate
        assertEquals(WriteResult.STORED, writeOne(intakeRecord(2, 17, now - 1, "order 42")));
    }

    @Test
    void sameIntakeRecordTwiceIsOneMessage() {
        long now = store.now();
        WriteOp.Schedule record = intakeRecord(1, 5, now + 60_000, "first");
        assertEquals(List.of(WriteResult.STORED, WriteResult.DUPLICATE), write(record, record));
        assertEquals(WriteResult.DUPLICATE, writeOne(record));
        WriteOp.Schedule explicit = schedule("order-7", now + 60_000, TOPIC + "/3/99", "x");
        assertEquals(List.of(WriteResult.STORED, WriteResult.DUPLICATE), write(explicit, explicit));
        assertEquals(1, store.stats(1).pending());
        assertEquals(1, store.stats(router.shardOf("order-7")).pending());
    }

    @Test
    void duplicateOfAMessageInFlightChangesNothing() {
        long now = store.now();
        WriteOp.Schedule record = intakeRecord(0, 3, now - 5, "once");
        writeOne(record);
        long epoch = store.acquire(0);
        ClaimedMessage message = store.claim(0, epoch, 10, LEASE).messages().get(0);

        assertEquals(WriteResult.DUPLICATE, writeOne(record));
        assertEquals(new ShardStats(0, 0, 1, -1), store.stats(0));
        assertEquals(1, store.ack(0, epoch, List.of(message.ref())));
    }

    @Test
    void anotherRecordWithTheSameIdReplacesThePendingMessage() {
        long now = store.now();
        assertEquals(WriteResult.STORED, writeOne(schedule("order-42", now + 60_000, TOPIC + "/1/10", "v1")));
        assertEquals(WriteResult.REPLACED, writeOne(schedule("order-42", now - 1, TOPIC + "/3/20", "v2")));
        int shard = router.shardOf("order-42");
        assertEquals(1, store.stats(shard).pending());

        ClaimBatch batch = store.claim(shard, store.acquire(shard), 10, LEASE);
        assertEquals(List.of("order-42"), ids(batch));
        assertEquals("v2", body(batch.messages().get(0)));
        assertEquals(now - 1, batch.messages().get(0).dueAt());
    }

    @Test
    void anExplicitIdEqualToADefaultIdReplacesThatMessage() {
        long now = store.now();
        writeOne(intakeRecord(2, 8, now + 60_000, "original"));
        // a producer reschedules the record at partition 2, offset 8 by naming its default id
        assertEquals(WriteResult.REPLACED, writeOne(schedule(TOPIC + "-2-8", now - 1, TOPIC + "/0/1", "moved")));
        ClaimBatch batch = store.claim(2, store.acquire(2), 10, LEASE);
        assertEquals("moved", body(batch.messages().get(0)));
    }

    @Test
    void replacingAMessageInFlightKeepsTheNewVersion() {
        long now = store.now();
        writeOne(schedule("job-1", now - 10, TOPIC + "/0/1", "old"));
        int shard = router.shardOf("job-1");
        long epoch = store.acquire(shard);
        ClaimedMessage old = store.claim(shard, epoch, 10, LEASE).messages().get(0);

        assertEquals(WriteResult.REPLACED, writeOne(schedule("job-1", now - 5, TOPIC + "/0/2", "new")));
        assertEquals(new ShardStats(shard, 1, 0, now - 5), store.stats(shard));
        assertEquals(0, store.ack(shard, epoch, List.of(old.ref())), "the old delivery's ack deletes nothing");
        assertFalse(store.retry(shard, epoch, old.ref(), now + 1_000), "the old delivery's retry moves nothing");

        ClaimedMessage fresh = store.claim(shard, epoch, 10, LEASE).messages().get(0);
        assertEquals("new", body(fresh));
        assertEquals(1, fresh.attempt());
    }

    private static WriteOp.Schedule schedule(String id, long dueAt, String origin, String body, long timestamp) {
        return new WriteOp.Schedule(id, dueAt, origin, envelope(body), timestamp);
    }

    private String pendingBody(String id) {
        int shard = router.shardOf(id);
        List<ClaimedMessage> messages = store.claim(shard, store.acquire(shard), 10, LEASE).messages();
        assertEquals(1, messages.size(), "pending versions of " + id);
        return body(messages.get(0));
    }

    @Test
    void anOlderRecordReadAfterANewerOneOfItsIdIsDropped() {
        long now = store.now();
        // the reschedule (record time 2000) came in on a partition read first; the version it replaces (1000) on a
        // lagging one
        assertEquals(WriteResult.STORED, writeOne(schedule("order-9", now - 1, TOPIC + "/3/40", "newer", 2_000)));
        assertEquals(WriteResult.SUPERSEDED, writeOne(schedule("order-9", now - 1, TOPIC + "/0/7", "older", 1_000)));
        assertEquals(WriteResult.REPLACED, writeOne(schedule("order-9", now - 1, TOPIC + "/1/2", "newest", 3_000)));
        assertEquals("newest", pendingBody("order-9"));
    }

    @Test
    void aReplacedVersionReadAgainAfterACrashDoesNotComeBack() {
        long now = store.now();
        WriteOp.Schedule first = schedule("order-10", now + 60_000, TOPIC + "/0/5", "first", 1_000);
        writeOne(first);
        assertEquals(WriteResult.REPLACED, writeOne(schedule("order-10", now - 1, TOPIC + "/2/9", "second", 1_500)));
        // the intake crashed before committing the first record's offset and reads it again
        assertEquals(WriteResult.SUPERSEDED, writeOne(first));
        int shard = router.shardOf("order-10");
        assertEquals(new ShardStats(shard, 1, 0, now - 1), store.stats(shard), "the second version's due time stays");
        assertEquals("second", pendingBody("order-10"));
    }

    @Test
    void recordsOfOnePartitionWithTheSameTimestampAreOrderedByOffset() {
        long now = store.now();
        // one producer batch gets one LogAppendTime: the offsets still order it
        writeOne(schedule("order-11", now - 1, TOPIC + "/1/7", "offset 7", 5_000));
        assertEquals(WriteResult.SUPERSEDED,
                writeOne(schedule("order-11", now - 1, TOPIC + "/1/6", "offset 6", 5_000)));
        assertEquals(WriteResult.REPLACED, writeOne(schedule("order-11", now - 1, TOPIC + "/1/8", "offset 8", 5_000)));
        assertEquals("offset 8", pendingBody("order-11"));
    }

    @Test
    void aLaterTimestampIsNewerWhateverItsOffset() {
        long now = store.now();
        // the intake topic was deleted and created again: its offsets start over
        writeOne(schedule("order-14", now - 1, TOPIC + "/1/900", "before the topic was recreated", 5_000));
        assertEquals(WriteResult.REPLACED,
                writeOne(schedule("order-14", now - 1, TOPIC + "/1/3", "after", 9_000)));
        assertEquals("after", pendingBody("order-14"));
    }

    @Test
    void aDefaultIdsOwnRecordReadAgainDoesNotUndoItsReschedule() {
        long now = store.now();
        WriteOp.Schedule own = schedule(TOPIC + "-2-5", now + 60_000, TOPIC + "/2/5", "own", 1_000);
        writeOne(own);
        // a later record of the same partition and producer batch (the same LogAppendTime) reschedules it by its id
        assertEquals(WriteResult.REPLACED,
                writeOne(schedule(TOPIC + "-2-5", now - 1, TOPIC + "/2/9", "rescheduled", 1_000)));
        // after a crash the intake reads both again
        assertEquals(WriteResult.SUPERSEDED, writeOne(own));
        assertEquals(WriteResult.DUPLICATE,
                writeOne(schedule(TOPIC + "-2-5", now - 1, TOPIC + "/2/9", "rescheduled", 1_000)));
        assertEquals("rescheduled", pendingBody(TOPIC + "-2-5"));
    }

    @Test
    void aRecordWithoutATimestampIsOrderedByItsOffsetAlone() {
        long now = store.now();
        writeOne(schedule("order-15", now - 1, TOPIC + "/0/7", "offset 7", 5_000));
        // Kafka's -1: the oldest message format had no timestamps
        assertEquals(WriteResult.SUPERSEDED, writeOne(schedule("order-15", now - 1, TOPIC + "/0/6", "offset 6", -1)));
        assertEquals(WriteResult.REPLACED,
                writeOne(schedule("order-15", now - 1, TOPIC + "/3/1", "another partition", -1)));
        assertEquals("another partition", pendingBody("order-15"));
    }

    @Test
    void withoutAnOrderTheRecordReadLastWins() {
        long now = store.now();
        writeOne(schedule("order-12", now - 1, TOPIC + "/0/1", "a", 1_000));
        assertEquals(WriteResult.REPLACED,
                writeOne(schedule("order-12", now - 1, TOPIC + "/1/1", "same instant", 1_000)));
        assertEquals(WriteResult.REPLACED, writeOne(schedule("order-12", now - 1, TOPIC + "/2/1", "no timestamp")));
        assertEquals(WriteResult.REPLACED, writeOne(schedule("order-12", now - 1, TOPIC + "/3/1", "older", 500)),
                "the stored version's time is not known");
        assertEquals("older", pendingBody("order-12"));
    }

    @Test
    void anOlderRecordDoesNotReplaceAVersionInFlight() {
        long now = store.now();
        writeOne(schedule("job-2", now - 10, TOPIC + "/2/3", "newer", 2_000));
        int shard = router.shardOf("job-2");
        long epoch = store.acquire(shard);
        ClaimedMessage inFlight = store.claim(shard, epoch, 10, LEASE).messages().get(0);
        assertEquals(WriteResult.SUPERSEDED, writeOne(schedule("job-2", now - 5, TOPIC + "/0/3", "older", 1_000)));
        assertEquals(1, store.ack(shard, epoch, List.of(inFlight.ref())), "the lease is kept: its ack deletes it");
        assertEquals(0, store.stats(shard).pending());
    }

    @Test
    void aRecordStoredWithoutItsTimestampIsStillKnownWhenReadAgainWithIt() {
        long now = store.now();
        // stored by a bridge whose stored values did not carry the record timestamp yet
        writeOne(schedule("order-13", now - 1, TOPIC + "/0/4", "once"));
        assertEquals(WriteResult.DUPLICATE, writeOne(schedule("order-13", now - 1, TOPIC + "/0/4", "once", 1_000)));
    }

    // ------------------------------------------------------------------------------------------------ cancel

    @Test
    void cancelRemovesAPendingMessage() {
        long now = store.now();
        writeOne(intakeRecord(3, 4, now - 1, "doomed"));
        assertEquals(WriteResult.CANCELLED, writeOne(new WriteOp.Cancel(TOPIC + "-3-4")));
        assertEquals(new ShardStats(3, 0, 0, -1), store.stats(3));
        assertTrue(store.claim(3, store.acquire(3), 10, LEASE).messages().isEmpty());
        assertEquals(WriteResult.NOT_FOUND, writeOne(new WriteOp.Cancel(TOPIC + "-3-4")), "a second cancel");
    }

    @Test
    void cancelOfAnUnknownIdIsNotFound() {
        assertEquals(WriteResult.NOT_FOUND, writeOne(new WriteOp.Cancel("never-scheduled")));
        assertEquals(WriteResult.NOT_FOUND, writeOne(new WriteOp.Cancel(TOPIC + "-1-1")));
    }

    @Test
    void cancelOfAMessageInFlightStopsItsRetriesAndRedelivery() {
        long now = store.now();
        writeOne(schedule("in-flight", now - 1, TOPIC + "/0/1", "x"));
        int shard = router.shardOf("in-flight");
        long epoch = store.acquire(shard);
        ClaimedMessage message = store.claim(shard, epoch, 10, 200).messages().get(0);

        assertEquals(WriteResult.CANCELLED, writeOne(new WriteOp.Cancel("in-flight")));
        assertEquals(new ShardStats(shard, 0, 0, -1), store.stats(shard));
        assertFalse(store.retry(shard, epoch, message.ref(), now));
        assertEquals(0, store.ack(shard, epoch, List.of(message.ref())));
        assertEquals(0, store.reclaim(shard, epoch, 10));
    }

    @Test
    void cancelAndReplacementFindTheMessageFromAnyPartition() {
        long now = store.now();
        // the same explicit id arrives on three different intake partitions
        assertEquals(WriteResult.STORED, writeOne(schedule("order-42", now + 60_000, TOPIC + "/0/1", "a")));
        assertEquals(WriteResult.REPLACED, writeOne(schedule("order-42", now + 60_000, TOPIC + "/1/1", "b")));
        assertEquals(WriteResult.CANCELLED, writeOne(new WriteOp.Cancel("order-42")));
        for (int shard = 0; shard < SHARDS; shard++) {
            assertEquals(0, store.stats(shard).pending(), "shard " + shard);
        }
    }

    @Test
    void aCancelReadBeforeAnOlderScheduleOfTheSameIdWins() {
        long now = store.now();
        // the cancel (record time 2000) came in on a partition that was read first; the schedule it cancels
        // (record time 1000) on a lagging one
        assertEquals(WriteResult.NOT_FOUND, writeOne(new WriteOp.Cancel("order-7", 2_000, 0)));
        assertEquals(WriteResult.ALREADY_CANCELLED, writeOne(new WriteOp.Schedule(
                "order-7", now - 1, TOPIC + "/2/9", envelope("late"), 1_000)));
        assertEquals(WriteResult.ALREADY_CANCELLED, writeOne(new WriteOp.Schedule(
                "order-7", now - 1, TOPIC + "/2/10", envelope("same instant"), 2_000)), "a tie goes to the cancel");
        int shard = router.shardOf("order-7");
        assertEquals(0, store.stats(shard).pending());
        assertTrue(store.claim(shard, store.acquire(shard), 10, LEASE).messages().isEmpty());
    }

    @Test
    void aScheduleNewerThanTheRememberedCancelSchedulesTheIdAgain() {
        long now = store.now();
        writeOne(new WriteOp.Cancel("order-8", 2_000, 0));
        assertEquals(WriteResult.STORED, writeOne(new WriteOp.Schedule(
                "order-8", now - 1, TOPIC + "/0/1", envelope("again"), 3_000)));
        // an older record read now is older than the stored version
        WriteOp.Schedule older = new WriteOp.Schedule("order-8", now - 1, TOPIC + "/1/2", envelope("older"), 1_500);
        assertEquals(WriteResult.SUPERSEDED, writeOne(older));
        // once that version is delivered, the remembered cancel is gone with it: the older record is stored again
        int shard = router.shardOf("order-8");
        long epoch = store.acquire(shard);
        assertEquals(1, store.ack(shard, epoch, List.of(store.claim(shard, epoch, 10, LEASE).messages().get(0).ref())));
        assertEquals(WriteResult.STORED, writeOne(older));
    }

    @Test
    void aScheduleReadAgainAfterItWasCancelledDoesNotComeBack() {
        long now = store.now();
        WriteOp.Schedule record = new WriteOp.Schedule(
                TOPIC + "-1-5", now - 1, TOPIC + "/1/5", envelope("x"), 1_000);
        writeOne(record);
        assertEquals(WriteResult.CANCELLED, writeOne(new WriteOp.Cancel(TOPIC + "-1-5", 1_200, 0)));
        // the intake crashed before committing the schedule's offset and reads it again
        assertEquals(WriteResult.ALREADY_CANCELLED, writeOne(record));
        assertEquals(0, store.stats(1).pending());
    }

    @Test
    void rememberedCancelsAreForgottenAfterTheirTime() {
        long now = store.now();
        writeOne(new WriteOp.Cancel(TOPIC + "-0-100", 1_000, 0));
        // a later cancel in the same shard forgets what was remembered before its forget time
        writeOne(new WriteOp.Cancel(TOPIC + "-0-101", 5_000, 4_000));
        assertEquals(WriteResult.STORED, writeOne(new WriteOp.Schedule(
                TOPIC + "-0-100", now - 1, TOPIC + "/0/100", envelope("y"), 500)), "forgotten: not suppressed");
        assertEquals(WriteResult.ALREADY_CANCELLED, writeOne(new WriteOp.Schedule(
                TOPIC + "-0-101", now - 1, TOPIC + "/0/101", envelope("y"), 4_500)), "still remembered");
    }

    @Test
    void withoutTimestampsNothingIsRememberedOrSuppressed() {
        long now = store.now();
        writeOne(new WriteOp.Cancel("plain"));
        assertEquals(WriteResult.STORED, writeOne(schedule("plain", now - 1, TOPIC + "/0/4", "z")));
    }

    // ------------------------------------------------------------------------------------------------ claim

    @Test
    void claimNeverTakesAMessageEarly() {
        long due = store.now() + 1_000;
        writeOne(intakeRecord(1, 1, due, "later"));
        long epoch = store.acquire(1);

        ClaimBatch early = store.claim(1, epoch, 10, LEASE);
        assertTrue(early.messages().isEmpty(), "claimed at " + early.redisNow() + ", due " + due);
        assertEquals(due, early.nextDueAt());
        assertEquals(OptionalLong.of(due), store.nextDueAt(1));

        AtomicReference<ClaimBatch> claimed = new AtomicReference<>();
        await().atMost(DEADLINE).pollInterval(Duration.ofMillis(20)).until(() -> {
            ClaimBatch batch = store.claim(1, epoch, 10, LEASE);
            assertTrue(batch.messages().isEmpty() || batch.redisNow() >= due,
                    "claimed at " + batch.redisNow() + ", due " + due);
            claimed.set(batch);
            return !batch.messages().isEmpty();
        });
        assertEquals(due, claimed.get().messages().get(0).dueAt());
    }

    @Test
    void aLookAheadClaimTakesWhatFallsDueWithinItAndNothingLater() throws Exception {
        long now = store.now();
        write(intakeRecord(1, 1, now + 2_000, "soon"), intakeRecord(1, 2, now + 60_000, "later"));
        long epoch = store.acquire(1);
        assertTrue(store.claim(1, epoch, 10, LEASE).messages().isEmpty(), "without look-ahead nothing is due");

        ClaimBatch batch = store.claimAsync(1, epoch, 10, LEASE, 30_000).get(10, TimeUnit.SECONDS);
        assertEquals(List.of(TOPIC + "-1-1"), ids(batch));
        assertTrue(batch.redisNow() < batch.messages().get(0).dueAt(),
                "the claim tells the caller that the message is not due yet");
        assertEquals(now + 60_000, batch.nextDueAt());
        assertEquals(1, store.stats(1).inFlight());
    }

    @Test
    void claimTakesEarliestFirstThenIntakeOffset() {
        long t = store.now() - 1_000;
        String explicit = explicitIdIn(1, "explicit");
        write(
                intakeRecord(1, 500, t, "500"),
                schedule(explicit, t, TOPIC + "/0/0", "explicit"),
                intakeRecord(1, 30, t, "30"),
                intakeRecord(1, 7_000_000_000L, t - 1, "early"),
                intakeRecord(1, 256, t, "256"),
                intakeRecord(1, 2, t + 500, "last"));
        ClaimBatch batch = store.claim(1, store.acquire(1), 10, LEASE);
        assertEquals(List.of(TOPIC + "-1-7000000000", TOPIC + "-1-30", TOPIC + "-1-256", TOPIC + "-1-500", explicit,
                TOPIC + "-1-2"), ids(batch));
    }

    @Test
    void claimIsBoundedAndReportsWhatIsLeft() {
        long now = store.now();
        List<WriteOp> ops = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            ops.add(intakeRecord(0, i, now - 100 + i, "m" + i));
        }
        ops.add(intakeRecord(0, 99, now + 60_000, "future"));
        write(ops.toArray(WriteOp[]::new));
        long epoch = store.acquire(0);

        ClaimBatch first = store.claim(0, epoch, 3, LEASE);
        assertEquals(List.of(TOPIC + "-0-0", TOPIC + "-0-1", TOPIC + "-0-2"), ids(first));
        assertEquals(now - 100 + 3, first.nextDueAt());
        assertEquals(3, store.claim(0, epoch, 3, LEASE).messages().size());
        ClaimBatch last = store.claim(0, epoch, 3, LEASE);
        assertEquals(List.of(TOPIC + "-0-6"), ids(last));
        assertEquals(now + 60_000, last.nextDueAt());
        assertEquals(new ShardStats(0, 1, 7, now + 60_000), store.stats(0));
    }

    @Test
    void claimOfAnEmptyShardReportsNothingNext() {
        ClaimBatch batch = store.claim(2, store.acquire(2), 10, LEASE);
        assertTrue(batch.messages().isEmpty());
        assertFalse(batch.hasNext());
        assertEquals(-1, batch.nextDueAt());
    }

    // ------------------------------------------------------------------------------------------------ retry

    @Test
    void retryDelaysTheMessageAndCountsTheAttempt() {
        long now = store.now();
        writeOne(intakeRecord(3, 1, now - 1, "flaky"));
        long epoch = store.acquire(3);
        ClaimedMessage first = store.claim(3, epoch, 10, LEASE).messages().get(0);
        assertEquals(1, first.attempt());

        long retryAt = store.now() + 1_000;
        assertTrue(store.retry(3, epoch, first.ref(), retryAt));
        assertEquals(new ShardStats(3, 1, 0, retryAt), store.stats(3));
        assertTrue(store.claim(3, epoch, 10, LEASE).messages().isEmpty(), "not before retryAt");

        AtomicReference<ClaimedMessage> second = new AtomicReference<>();
        await().atMost(DEADLINE).pollInterval(Duration.ofMillis(20)).until(() -> {
            List<ClaimedMessage> claimed = store.claim(3, epoch, 10, LEASE).messages();
            claimed.stream().findFirst().ifPresent(second::set);
            return !claimed.isEmpty();
        });
        assertEquals(2, second.get().attempt());
        assertEquals(retryAt, second.get().dueAt());
        assertEquals("flaky", body(second.get()));

        assertTrue(store.retry(3, epoch, second.get().ref(), now - 1));
        assertEquals(3, store.claim(3, epoch, 10, LEASE).messages().get(0).attempt());
    }

    @Test
    void retryOfAMessageNotInFlightDoesNothing() {
        long now = store.now();
        writeOne(intakeRecord(3, 2, now + 60_000, "waiting"));
        long epoch = store.acquire(3);
        assertFalse(store.retry(3, epoch, router.ref(TOPIC + "-3-2"), now));
        assertFalse(store.retry(3, epoch, router.ref(TOPIC + "-3-999"), now));
        assertEquals(new ShardStats(3, 1, 0, now + 60_000), store.stats(3));
    }

    // ------------------------------------------------------------------------------------------------ hand-back

    @Test
    void handBackReturnsMessagesAtTheirOwnDueTimeWithoutCountingAnAttempt() throws Exception {
        long now = store.now();
        writeOne(intakeRecord(3, 1, now - 500, "older"));
        writeOne(intakeRecord(3, 2, now - 100, "younger"));
        long epoch = store.acquire(3);
        List<ClaimedMessage> claimed = store.claim(3, epoch, 10, LEASE).messages();
        assertEquals(2, claimed.size());
        assertEquals(2, store.handBackAsync(3, epoch, claimed).get(5, TimeUnit.SECONDS));
        assertEquals(new ShardStats(3, 2, 0, now - 500), store.stats(3), "due again at the older one's due time");
        List<ClaimedMessage> again = store.claim(3, epoch, 10, LEASE).messages();
        assertEquals(List.of("older", "younger"), again.stream().map(m -> body(m)).toList(), "oldest first still");
        assertEquals(List.of(1, 1), again.stream().map(ClaimedMessage::attempt).toList(), "no attempt counted");
        assertEquals(List.of(now - 500, now - 100), again.stream().map(ClaimedMessage::dueAt).toList());

        store.ack(3, epoch, List.of(again.get(0).ref()));
        assertEquals(0, store.handBackAsync(3, epoch, List.of(again.get(0))).get(5, TimeUnit.SECONDS),
                "an acked message is not handed back");
        long newer = store.acquire(3);
        java.util.concurrent.ExecutionException fenced = assertThrows(java.util.concurrent.ExecutionException.class,
                () -> store.handBackAsync(3, epoch, List.of(again.get(1))).get(5, TimeUnit.SECONDS));
        assertTrue(fenced.getCause() instanceof StoreFencedException, fenced.toString());
        assertTrue(newer > epoch);
    }

    // ------------------------------------------------------------------------------------------------ reclaim

    @Test
    void reclaimReturnsMessagesWhoseLeaseExpired() {
        long now = store.now();
        writeOne(intakeRecord(2, 1, now - 1, "orphan"));
        writeOne(intakeRecord(2, 2, now - 1, "held"));
        long epoch = store.acquire(2);
        ClaimedMessage orphan = store.claim(2, epoch, 1, 1_000).messages().get(0);
        assertEquals(TOPIC + "-2-1", orphan.ref().id());
        store.claim(2, epoch, 1, LEASE);

        assertEquals(0, store.reclaim(2, epoch, 10), "the lease has not expired yet");
        await().atMost(DEADLINE).pollInterval(Duration.ofMillis(20)).until(() -> store.reclaim(2, epoch, 10) == 1);
        assertEquals(new ShardStats(2, 1, 1, store.nextDueAt(2).orElseThrow()), store.stats(2));

        ClaimedMessage again = store.claim(2, epoch, 10, LEASE).messages().get(0);
        assertEquals(TOPIC + "-2-1", again.ref().id());
        assertEquals(2, again.attempt());
        assertEquals("orphan", body(again));
        assertEquals(0, store.reclaim(2, epoch, 10));
    }

    @Test
    void reclaimIsBounded() {
        long now = store.now();
        for (int i = 0; i < 5; i++) {
            writeOne(intakeRecord(1, i, now - 1, "m"));
        }
        long epoch = store.acquire(1);
        ClaimBatch claimed = store.claim(1, epoch, 10, 50);
        assertEquals(5, claimed.messages().size());
        long leaseEnd = claimed.redisNow() + 50;
        await().atMost(DEADLINE).pollInterval(Duration.ofMillis(20)).until(() -> store.now() > leaseEnd);
        assertEquals(2, store.reclaim(1, epoch, 2));
        assertEquals(3, store.reclaim(1, epoch, 10));
        assertEquals(new ShardStats(1, 5, 0, store.nextDueAt(1).orElseThrow()), store.stats(1));
    }

    @Test
    void reclaimAllReturnsInFlightMessagesWhateverTheirLease() {
        long now = store.now();
        for (int i = 0; i < 3; i++) {
            writeOne(intakeRecord(3, i, now - 1, "lost-" + i));
        }
        long epoch = store.acquire(3);
        assertEquals(3, store.claim(3, epoch, 10, LEASE).messages().size(), "a claim whose answer never arrived");
        assertEquals(0, store.reclaim(3, epoch, 10), "their leases run for another " + LEASE + " ms");

        assertEquals(2, store.reclaimAll(3, epoch, 2));
        assertEquals(1, store.reclaimAll(3, epoch, 10));
        assertEquals(0, store.reclaimAll(3, epoch, 10));
        assertEquals(new ShardStats(3, 3, 0, store.nextDueAt(3).orElseThrow()), store.stats(3));
        List<ClaimedMessage> again = store.claim(3, epoch, 10, LEASE).messages();
        assertEquals(List.of("lost-0", "lost-1", "lost-2"), again.stream().map(m -> body(m)).toList(),
                "claimable at once, in their intake order");

        long newer = store.acquire(3);
        assertThrows(StoreFencedException.class, () -> store.reclaimAll(3, epoch, 10));
        assertTrue(newer > epoch);
    }

    // ------------------------------------------------------------------------------------------------ fencing

    @Test
    void anOwnerWithAnOldEpochCanNoLongerChangeTheShard() {
        long now = store.now();
        writeOne(intakeRecord(0, 1, now - 1, "a"));
        writeOne(intakeRecord(0, 2, now - 1, "b"));
        long old = store.acquire(0);
        ClaimBatch heldBatch = store.claim(0, old, 1, 50);
        ClaimedMessage held = heldBatch.messages().get(0);
        long leaseEnd = heldBatch.redisNow() + 50;
        long current = store.acquire(0);
        assertTrue(current > old);

        ShardStats before = store.stats(0);
        assertThrows(StoreFencedException.class, () -> store.claim(0, old, 10, LEASE));
        assertThrows(StoreFencedException.class, () -> store.ack(0, old, List.of(held.ref())));
        assertThrows(StoreFencedException.class, () -> store.retry(0, old, held.ref(), now));
        await().atMost(DEADLINE).pollInterval(Duration.ofMillis(20)).until(() -> store.now() > leaseEnd);
        assertThrows(StoreFencedException.class, () -> store.reclaim(0, old, 10));
        StoreFencedException fenced = assertThrows(StoreFencedException.class, () -> store.claim(0, old, 1, LEASE));
        assertEquals(0, fenced.shard());
        assertEquals(before, store.stats(0), "nothing changed");

        assertEquals(0, store.reclaim(0, current, 10), "the new owner took the fenced owner's message at acquire");
        assertEquals(2, store.claim(0, current, 10, LEASE).messages().size());
    }

    @Test
    void aNewOwnerGetsWhatFencedOwnersLeftInFlightAtOnce() {
        long now = store.now();
        writeOne(intakeRecord(1, 1, now - 1, "a"));
        writeOne(intakeRecord(1, 2, now - 1, "b"));
        writeOne(intakeRecord(1, 3, now + 60_000, "later"));
        long dead = store.acquire(1);
        List<ClaimedMessage> held = store.claim(1, dead, 10, LEASE).messages(); // a 30 s lease the owner never ends
        assertEquals(2, held.size());
        List<Long> wakes = new java.util.concurrent.CopyOnWriteArrayList<>();
        store.onWake((shard, dueAt) -> {
            if (shard == 1) {
                wakes.add(dueAt);
            }
        });

        long before = store.now();
        long current = store.acquire(1);
        long tookAt = store.now();
        assertEquals(new ShardStats(1, 3, 0, store.nextDueAt(1).orElseThrow()), store.stats(1),
                "nothing is left in flight");
        long dueAgain = store.nextDueAt(1).orElseThrow();
        assertTrue(dueAgain >= before && dueAgain <= tookAt, "due now, not when the lease ends: " + dueAgain);
        // the schedules above woke the shard for now - 1; the hand-over wakes it for the time it took the shard
        await().atMost(DEADLINE).until(() -> wakes.contains(dueAgain));

        List<ClaimedMessage> again = store.claim(1, current, 10, LEASE).messages();
        assertEquals(List.of(TOPIC + "-1-1", TOPIC + "-1-2"), again.stream().map(m -> m.ref().id()).toList());
        assertTrue(again.stream().allMatch(m -> m.attempt() == 2), "the lost attempt is counted");
        assertThrows(StoreFencedException.class, () -> store.ack(1, dead, List.of(held.get(0).ref())),
                "the fenced owner cannot ack");
        assertEquals(2, store.ack(1, current, again.stream().map(ClaimedMessage::ref).toList()));
    }

    @Test
    void acquiringAShardWithNothingInFlightMovesNothing() {
        long now = store.now();
        writeOne(intakeRecord(3, 1, now + 60_000, "later"));
        store.acquire(3);
        long current = store.acquire(3);
        assertEquals(new ShardStats(3, 1, 0, now + 60_000), store.stats(3));
        assertTrue(store.claim(3, current, 10, LEASE).messages().isEmpty(), "nothing due early");
    }

    @Test
    void epochsArePerShard() {
        long zero = store.acquire(0);
        store.acquire(1);
        store.acquire(1);
        store.claim(0, zero, 1, LEASE); // shard 1's owners do not fence shard 0's
        assertThrows(StoreFencedException.class, () -> store.claim(1, zero + 1_000, 1, LEASE));
    }

    // ------------------------------------------------------------------------------------------------ wake-ups

    @Test
    void wakesWhenAnEarlierMessageArrivesAndNotForALaterOne() throws InterruptedException {
        BlockingQueue<long[]> wakes = new LinkedBlockingQueue<>();
        store.onWake((shard, dueAt) -> wakes.add(new long[] {shard, dueAt}));
        long now = store.now();

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
    void retryToAnEarlierTimeWakes() {
        long now = store.now();
        writeOne(intakeRecord(3, 1, now - 1, "a"));
        writeOne(intakeRecord(3, 2, now + 60_000, "b"));
        long epoch = store.acquire(3);
        ClaimedMessage message = store.claim(3, epoch, 1, LEASE).messages().get(0);
        List<Long> wakes = new java.util.concurrent.CopyOnWriteArrayList<>();
        store.onWake((shard, dueAt) -> {
            if (shard == 3) {
                wakes.add(dueAt);
            }
        });

        assertTrue(store.retry(3, epoch, message.ref(), now + 1_000));
        // wake-ups of the schedules above may still arrive: wait for this one
        await().atMost(DEADLINE).until(() -> wakes.contains(now + 1_000));
    }

    // ------------------------------------------------------------------------------------------------ batches

    @Test
    void aBatchAnswersInInputOrderAcrossShards() {
        long now = store.now();
        List<WriteResult> results = write(
                intakeRecord(0, 1, now + 60_000, "a"),
                intakeRecord(1, 1, now + 60_000, "b"),
                new WriteOp.Cancel(TOPIC + "-0-1"),
                intakeRecord(1, 1, now + 60_000, "b"),
                new WriteOp.Cancel("nothing"),
                schedule("order-1", now + 60_000, TOPIC + "/2/5", "c"),
                schedule("order-1", now + 60_000, TOPIC + "/3/6", "d"));
        assertEquals(List.of(WriteResult.STORED, WriteResult.STORED, WriteResult.CANCELLED, WriteResult.DUPLICATE,
                WriteResult.NOT_FOUND, WriteResult.STORED, WriteResult.REPLACED), results);
        assertEquals(List.of(), write());
    }

    @Test
    void writesFromManyThreadsAtOnceAllLand() throws Exception {
        long now = store.now();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<CompletableFuture<List<WriteResult>>> futures = new ArrayList<>();
            for (int batch = 0; batch < 40; batch++) {
                int b = batch;
                futures.add(CompletableFuture.supplyAsync(() -> {
                    List<WriteOp> ops = new ArrayList<>();
                    for (int i = 0; i < 25; i++) {
                        ops.add(intakeRecord(b % SHARDS, b * 100L + i, now + 60_000, "m"));
                    }
                    return store.write(ops).join();
                }, pool));
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
            total += store.stats(shard).pending();
        }
        assertEquals(1_000, total);
    }

    // ------------------------------------------------------------------------------------------------ inspection

    @Test
    void nextDueAtAndStatsDescribeTheShard() {
        assertEquals(OptionalLong.empty(), store.nextDueAt(1));
        assertEquals(new ShardStats(1, 0, 0, -1), store.stats(1));
        long now = store.now();
        write(intakeRecord(1, 1, now + 5_000, "a"), intakeRecord(1, 2, now + 3_000, "b"),
                intakeRecord(1, 3, now - 1, "c"));
        assertEquals(OptionalLong.of(now - 1), store.nextDueAt(1));
        store.claim(1, store.acquire(1), 1, LEASE);
        assertEquals(OptionalLong.of(now + 3_000), store.nextDueAt(1));
        assertEquals(new ShardStats(1, 2, 1, now + 3_000), store.stats(1));
        assertEquals(new ShardStats(0, 0, 0, -1), store.stats(0));
    }

    @Test
    void shardCountAndClock() {
        assertEquals(SHARDS, store.shardCount());
        long before = System.currentTimeMillis();
        long now = store.now();
        long after = System.currentTimeMillis();
        // the store's clock is the server's; in these tests it runs on this machine
        assertTrue(now >= before - 1_000 && now <= after + 1_000, before + " <= " + now + " <= " + after);
    }

    @Test
    void explicitIdsLiveInTheShardTheRouterNames() {
        long now = store.now();
        List<String> explicitIds = List.of("order-42", "customer-7", "Bestellung-ü-日本", TOPIC + "-01-5",
                "other-topic-1-5", TOPIC + "-9-5");
        for (String id : explicitIds) {
            writeOne(schedule(id, now - 1, TOPIC + "/0/1", id));
        }
        for (int shard = 0; shard < SHARDS; shard++) {
            List<String> claimed = ids(store.claim(shard, store.acquire(shard), 100, LEASE));
            for (String id : claimed) {
                assertEquals(router.shardOf(id), shard, id);
            }
            for (String id : explicitIds) {
                assertEquals(router.shardOf(id) == shard, claimed.contains(id), id + " in shard " + shard);
            }
        }
    }
}

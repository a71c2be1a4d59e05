package io.delaybridge.bridge.store.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.bridge.store.ClaimBatch;
import io.delaybridge.bridge.store.ClaimedMessage;
import io.delaybridge.bridge.store.MessageRef;
import io.delaybridge.bridge.store.ShardRouter;
import io.delaybridge.bridge.store.ShardStats;
import io.delaybridge.bridge.store.WriteOp;
import io.delaybridge.bridge.store.WriteResult;
import io.delaybridge.schemas.IntakeOrigin;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.TestServers;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The batch semantics of {@link RedisDelayStore#write} on a real Redis: {@code schedule.lua} takes the schedules of one
 * shard that follow each other in a batch in one call (at most {@link WritePlan#MAX_SCHEDULES_PER_CALL} messages,
 * {@link RedisDelayStore#MAX_BYTES_PER_CALL} bytes), a cancel of a shard closes that shard's open call, and
 * {@code claim.lua} / {@code ack.lua} work in variadic parts of 1,000 members. Whatever the grouping, a batch must do
 * exactly what its operations done one by one, in order, would do, and answer in the order of its operations.
 *
 * <p>Each test gets its own key prefix, so its shards start empty. Due times are relative to {@link
 * RedisDelayStore#now()}, Redis' clock; no test waits.
 */
@ExtendWith(RealServersExtension.class)
class ScheduleBatchIT {

    private static final String TOPIC = "delay-intake";
    private static final int SHARDS = 4;
    private static final long LEASE = 30_000;
    /** Record timestamps: any epoch ms; only their order matters. */
    private static final long T = 1_700_000_000_000L;

    private final TestServers servers;
    private final ShardRouter router = new ShardRouter(TOPIC, SHARDS);
    private RedisDelayStore store;

    ScheduleBatchIT(TestServers servers) {
        this.servers = servers;
    }

    @BeforeEach
    void openStore() {
        store = RedisDelayStore.connect(
                RedisStoreOptions.of(servers.redisUri(), TOPIC, SHARDS).withKeyPrefix(servers.unique("batch")));
    }

    @AfterEach
    void closeStore() {
        if (store != null) {
            store.close();
        }
    }

    // ------------------------------------------------------------------------------------------------ helpers

    private static byte[] envelope(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String body(ClaimedMessage message) {
        return new String(message.envelope(), StandardCharsets.UTF_8);
    }

    private static WriteOp.Schedule schedule(String id, long dueAt, String origin, String body) {
        return new WriteOp.Schedule(id, dueAt, IntakeOrigin.parse(origin), envelope(body));
    }

    private static WriteOp.Schedule schedule(String id, long dueAt, String origin, String body, long timestamp) {
        return new WriteOp.Schedule(id, dueAt, IntakeOrigin.parse(origin), envelope(body), timestamp);
    }

    private static String defaultId(int partition, long offset) {
        return TOPIC + "-" + partition + "-" + offset;
    }

    /** A default-form id and its own origin, on intake partition {@code partition}. */
    private static WriteOp.Schedule intakeRecord(int partition, long offset, long dueAt, String body) {
        return schedule(defaultId(partition, offset), dueAt, TOPIC + "/" + partition + "/" + offset, body);
    }

    private List<WriteResult> write(List<WriteOp> ops) {
        try {
            return store.write(ops).get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("write of " + ops.size() + " operations failed", e);
        }
    }

    private List<WriteResult> write(WriteOp... ops) {
        return write(List.of(ops));
    }

    /** An explicit id that the router places in {@code shard}. */
    private String explicitIdIn(int shard, String base) {
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

    private static List<WriteResult> repeat(WriteResult result, int times) {
        return Collections.nCopies(times, result);
    }

    // ------------------------------------------------------------------------------------------------ one id twice

    @Test
    void theSameExplicitIdTwiceInOneBatchKeepsTheSecond() {
        long now = store.now();
        String earlierThenLater = explicitIdIn(1, "order");
        String laterThenEarlier = explicitIdIn(2, "order");

        assertEquals(
                List.of(WriteResult.STORED, WriteResult.REPLACED, WriteResult.STORED, WriteResult.REPLACED),
                write(
                        schedule(laterThenEarlier, now + 60_000, TOPIC + "/1/10", "v1"),
                        schedule(laterThenEarlier, now - 1, TOPIC + "/3/20", "v2"),
                        schedule(earlierThenLater, now - 1, TOPIC + "/0/5", "w1"),
                        schedule(earlierThenLater, now + 60_000, TOPIC + "/2/6", "w2")));

        // the second version's due time and envelope, once: not the first's, not both
        assertEquals(new ShardStats(2, 1, 0, now - 1), store.stats(2));
        ClaimBatch batch = store.claim(2, store.acquire(2), 10, LEASE);
        assertEquals(List.of(laterThenEarlier), ids(batch));
        assertEquals("v2", body(batch.messages().get(0)));
        assertEquals(now - 1, batch.messages().get(0).dueAt());
        assertFalse(batch.hasNext());

        // a second version due later is not claimable now: the first version's earlier due time is gone
        assertEquals(new ShardStats(1, 1, 0, now + 60_000), store.stats(1));
        ClaimBatch notYet = store.claim(1, store.acquire(1), 10, LEASE);
        assertTrue(notYet.messages().isEmpty(), () -> "claimed " + ids(notYet));
        assertEquals(now + 60_000, notYet.nextDueAt());
    }

    @Test
    void scheduleCancelScheduleOfOneIdInOneBatchAppliesInOrder() {
        long now = store.now();
        String again = explicitIdIn(3, "again");
        assertEquals(
                List.of(WriteResult.STORED, WriteResult.CANCELLED, WriteResult.STORED),
                write(
                        schedule(again, now - 10, TOPIC + "/0/1", "first", T + 1_000),
                        new WriteOp.Cancel(again, T + 2_000, 0),
                        schedule(again, now - 5, TOPIC + "/2/9", "last", T + 3_000)));
        assertEquals(new ShardStats(3, 1, 0, now - 5), store.stats(3));
        ClaimBatch batch = store.claim(3, store.acquire(3), 10, LEASE);
        assertEquals(List.of(again), ids(batch));
        assertEquals("last", body(batch.messages().get(0)));
        assertEquals(now - 5, batch.messages().get(0).dueAt());
    }

    @Test
    void aRescheduleOlderThanTheCancelBeforeItInTheSameBatchIsDropped() {
        long now = store.now();
        String doomed = explicitIdIn(0, "doomed");
        assertEquals(
                List.of(
                        WriteResult.STORED,
                        WriteResult.CANCELLED,
                        WriteResult.ALREADY_CANCELLED,
                        WriteResult.ALREADY_CANCELLED),
                write(
                        schedule(doomed, now - 10, TOPIC + "/0/1", "first", T + 1_000),
                        new WriteOp.Cancel(doomed, T + 2_000, 0),
                        schedule(doomed, now - 5, TOPIC + "/2/9", "older", T + 1_500),
                        schedule(doomed, now - 5, TOPIC + "/2/10", "same instant", T + 2_000)));
        assertEquals(new ShardStats(0, 0, 0, -1), store.stats(0));
        assertTrue(store.claim(0, store.acquire(0), 10, LEASE).messages().isEmpty());
    }

    @Test
    void aCancelClosesItsShardsScheduleCallForEveryIdOfTheShard() {
        long now = store.now();
        // remembered: a cancel of offset 100 from record time T+1000
        assertEquals(List.of(WriteResult.NOT_FOUND), write(new WriteOp.Cancel(defaultId(0, 100), T + 1_000, 0)));
        WriteOp.Schedule record = new WriteOp.Schedule(
                defaultId(0, 100), now - 1, new IntakeOrigin(TOPIC, 0, 100), envelope("x"), T + 500);

        // a cancel of ANOTHER id of the shard forgets cancels older than T+4000: the schedule after it in the batch
        // must see that, the one before it must not
        assertEquals(
                List.of(WriteResult.ALREADY_CANCELLED, WriteResult.NOT_FOUND, WriteResult.STORED),
                write(record, new WriteOp.Cancel(defaultId(0, 101), T + 5_000, T + 4_000), record));
        assertEquals(new ShardStats(0, 1, 0, now - 1), store.stats(0));
    }

    @Test
    void theSameIntakeRecordTwiceInOneBatchIsStoredOnce() {
        long now = store.now();
        WriteOp.Schedule record = intakeRecord(1, 5, now - 1, "once");
        String explicit = explicitIdIn(1, "explicit");
        WriteOp.Schedule explicitRecord = schedule(explicit, now - 2, TOPIC + "/3/99", "explicit once");
        assertEquals(
                List.of(WriteResult.STORED, WriteResult.STORED, WriteResult.DUPLICATE, WriteResult.DUPLICATE),
                write(record, explicitRecord, record, explicitRecord));
        assertEquals(new ShardStats(1, 2, 0, now - 2), store.stats(1));

        long epoch = store.acquire(1);
        ClaimBatch batch = store.claim(1, epoch, 10, LEASE);
        assertEquals(List.of(explicit, defaultId(1, 5)), ids(batch));
        assertEquals(
                List.of("explicit once", "once"),
                batch.messages().stream().map(ScheduleBatchIT::body).toList());
        assertEquals(
                2,
                store.ack(
                        1,
                        epoch,
                        batch.messages().stream().map(ClaimedMessage::ref).toList()));
        assertEquals(new ShardStats(1, 0, 0, -1), store.stats(1));
    }

    @Test
    void aDuplicateIsJudgedAgainstWhatTheBatchLeftBeforeIt() {
        long now = store.now();
        String id = explicitIdIn(2, "flip");
        WriteOp.Schedule a = schedule(id, now - 1, TOPIC + "/0/1", "a");
        WriteOp.Schedule b = schedule(id, now - 1, TOPIC + "/1/1", "b");
        // a is stored, b replaces it, a read again is no longer what is stored: it replaces b, and then it is
        assertEquals(
                List.of(WriteResult.STORED, WriteResult.REPLACED, WriteResult.REPLACED, WriteResult.DUPLICATE),
                write(a, b, a, a));
        ClaimBatch batch = store.claim(2, store.acquire(2), 10, LEASE);
        assertEquals(List.of(id), ids(batch));
        assertEquals("a", body(batch.messages().get(0)));
    }

    // ------------------------------------------------------------------------------------------------ large batches

    @Test
    void aBatchOfManyCallsIsStoredClaimedAndAckedWhole() {
        int count = 1_300;
        int shard = 2;
        // more calls than one: the point of this test (6 with 256 per call)
        assertTrue(count > 5 * WritePlan.MAX_SCHEDULES_PER_CALL, "a batch of " + count + " must span 6 calls");
        long now = store.now();
        long base = now - 60_000;

        // offsets 65,000..66,299 (across the 0xFFFF/0x10000 boundary of the big-endian member), in a shuffled intake
        // order, with 13 distinct due times so that many messages share one
        List<WriteOp> ops = new ArrayList<>(count);
        List<long[]> expected = new ArrayList<>(count); // {due, offset}
        for (int i = 0; i < count; i++) {
            long offset = 65_000 + (i * 7_919L) % count; // 7919 is prime, so a permutation of 0..1299
            long due = base + (offset * 31 % 13) * 1_000;
            ops.add(intakeRecord(shard, offset, due, "m" + offset));
            expected.add(new long[] {due, offset});
        }
        expected.sort(Comparator.<long[]>comparingLong(e -> e[0]).thenComparingLong(e -> e[1]));

        assertEquals(repeat(WriteResult.STORED, count), write(ops));
        assertEquals(new ShardStats(shard, count, 0, base), store.stats(shard));
        for (int other = 0; other < SHARDS; other++) {
            if (other != shard) {
                assertEquals(new ShardStats(other, 0, 0, -1), store.stats(other), "shard " + other);
            }
        }

        long epoch = store.acquire(shard);
        ClaimBatch batch = store.claim(shard, epoch, count, LEASE);
        assertEquals(count, batch.messages().size());
        assertFalse(batch.hasNext());
        List<String> expectedIds =
                expected.stream().map(e -> defaultId(shard, e[1])).toList();
        assertEquals(expectedIds, ids(batch), "earliest due first, equal due times in offset order");
        for (int i = 0; i < count; i++) {
            ClaimedMessage message = batch.messages().get(i);
            assertEquals(expected.get(i)[0], message.dueAt(), message.ref().id());
            assertEquals("m" + expected.get(i)[1], body(message), message.ref().id());
            assertEquals(1, message.attempt(), message.ref().id());
        }
        assertEquals(new ShardStats(shard, 0, count, -1), store.stats(shard));

        List<MessageRef> refs =
                batch.messages().stream().map(ClaimedMessage::ref).toList();
        assertEquals(count, store.ack(shard, epoch, refs));
        assertEquals(new ShardStats(shard, 0, 0, -1), store.stats(shard));
        assertTrue(store.claim(shard, epoch, count, LEASE).messages().isEmpty());
        assertEquals(0, store.ack(shard, epoch, refs), "a second ack finds nothing");
    }

    @Test
    void duplicatesAndReplacementsAcrossACallBoundaryOfOneBatch() {
        int perCall = WritePlan.MAX_SCHEDULES_PER_CALL;
        long now = store.now();
        String explicit = explicitIdIn(1, "boundary");
        WriteOp.Schedule record = intakeRecord(1, 5, now - 1, "record");

        List<WriteOp> ops = new ArrayList<>();
        ops.add(record);
        ops.add(schedule(explicit, now - 1, TOPIC + "/0/1", "first"));
        for (long offset = 1_000; ops.size() < perCall; offset++) {
            ops.add(intakeRecord(1, offset, now + 60_000, "filler"));
        }
        // the first two of the second call repeat the first two of the first call
        ops.add(record);
        ops.add(schedule(explicit, now - 1, TOPIC + "/3/2", "second"));
        for (long offset = 2_000; ops.size() < perCall + 40; offset++) {
            ops.add(intakeRecord(1, offset, now + 60_000, "filler"));
        }

        List<WriteResult> expected = new ArrayList<>(repeat(WriteResult.STORED, ops.size()));
        expected.set(perCall, WriteResult.DUPLICATE);
        expected.set(perCall + 1, WriteResult.REPLACED);
        assertEquals(expected, write(ops));
        assertEquals(new ShardStats(1, ops.size() - 2, 0, now - 1), store.stats(1));

        ClaimBatch batch = store.claim(1, store.acquire(1), 10, LEASE);
        assertEquals(List.of(defaultId(1, 5), explicit), ids(batch));
        assertEquals(
                List.of("record", "second"),
                batch.messages().stream().map(ScheduleBatchIT::body).toList());
    }

    @Test
    void aBatchSplitByBytesStillAppliesInOrder() {
        long now = store.now();
        int size = WritePlan.MAX_BYTES_PER_CALL / 3 + 1; // three fill a call
        String id = explicitIdIn(3, "big");
        WriteOp.Schedule first =
                new WriteOp.Schedule(id, now - 1, new IntakeOrigin(TOPIC, 0, 1), bigEnvelope(size, 'a'));
        WriteOp.Schedule second =
                new WriteOp.Schedule(id, now - 1, new IntakeOrigin(TOPIC, 0, 2), bigEnvelope(size, 'b'));
        assertEquals(
                List.of(
                        WriteResult.STORED,
                        WriteResult.STORED,
                        WriteResult.STORED,
                        WriteResult.REPLACED,
                        WriteResult.DUPLICATE),
                write(
                        first,
                        new WriteOp.Schedule(
                                defaultId(3, 1), now + 60_000, new IntakeOrigin(TOPIC, 3, 1), bigEnvelope(size, 'x')),
                        new WriteOp.Schedule(
                                defaultId(3, 2), now + 60_000, new IntakeOrigin(TOPIC, 3, 2), bigEnvelope(size, 'y')),
                        second,
                        second));
        assertEquals(new ShardStats(3, 3, 0, now - 1), store.stats(3));
        ClaimBatch batch = store.claim(3, store.acquire(3), 10, LEASE);
        assertEquals(List.of(id), ids(batch));
        assertEquals(size, batch.messages().get(0).envelope().length);
        assertEquals('b', batch.messages().get(0).envelope()[size - 1]);
    }

    private static byte[] bigEnvelope(int size, char fill) {
        byte[] envelope = new byte[size];
        Arrays.fill(envelope, (byte) fill);
        return envelope;
    }

    // ------------------------------------------------------------------------------------------------ mixed batches

    @Test
    void aMixedBatchOverShardsAnswersInTheOrderOfItsOperations() {
        long now = store.now();
        String explicit = explicitIdIn(2, "mixed");
        String gone = explicitIdIn(1, "gone");
        assertEquals(
                List.of(WriteResult.STORED, WriteResult.NOT_FOUND),
                write(intakeRecord(3, 40, now + 60_000, "to cancel"), new WriteOp.Cancel(gone, T + 5_000, 0)));

        List<WriteOp> ops = List.of(
                intakeRecord(0, 1, now - 1, "zero"), // 0
                new WriteOp.Cancel(defaultId(1, 1)), // 1 before its schedule
                intakeRecord(1, 1, now - 1, "one"), // 2
                schedule(explicit, now - 1, TOPIC + "/0/7", "explicit a"), // 3
                new WriteOp.Cancel(defaultId(3, 40)), // 4 stored before the batch
                intakeRecord(0, 1, now - 1, "zero"), // 5 read again
                schedule(explicit, now - 2, TOPIC + "/1/8", "explicit b"), // 6
                new WriteOp.Cancel(defaultId(0, 1)), // 7
                schedule(gone, now - 1, TOPIC + "/2/3", "late", T + 4_000), // 8 older than its remembered cancel
                intakeRecord(0, 1, now - 1, "zero"), // 9 cancel without time: no memory
                new WriteOp.Cancel(defaultId(1, 1)), // 10
                intakeRecord(3, 41, now - 1, "three"), // 11
                new WriteOp.Cancel("never-scheduled"), // 12
                intakeRecord(1, 2, now - 1, "one again")); // 13
        assertEquals(
                List.of(
                        WriteResult.STORED,
                        WriteResult.NOT_FOUND,
                        WriteResult.STORED,
                        WriteResult.STORED,
                        WriteResult.CANCELLED,
                        WriteResult.DUPLICATE,
                        WriteResult.REPLACED,
                        WriteResult.CANCELLED,
                        WriteResult.ALREADY_CANCELLED,
                        WriteResult.STORED,
                        WriteResult.CANCELLED,
                        WriteResult.STORED,
                        WriteResult.NOT_FOUND,
                        WriteResult.STORED),
                write(ops));

        // what is left: 0-1 (stored again), the explicit id's second version, 3-41, 1-2
        assertEquals(List.of(defaultId(0, 1)), ids(store.claim(0, store.acquire(0), 10, LEASE)));
        assertEquals(List.of(defaultId(1, 2)), ids(store.claim(1, store.acquire(1), 10, LEASE)));
        ClaimBatch two = store.claim(2, store.acquire(2), 10, LEASE);
        assertEquals(List.of(explicit), ids(two));
        assertEquals("explicit b", body(two.messages().get(0)));
        assertEquals(now - 2, two.messages().get(0).dueAt());
        assertEquals(List.of(defaultId(3, 41)), ids(store.claim(3, store.acquire(3), 10, LEASE)));
        for (int shard = 0; shard < SHARDS; shard++) {
            assertEquals(0, store.stats(shard).pending(), "shard " + shard);
        }
    }

    // ------------------------------------------------------------------------------------------------ in flight

    @Test
    void aDuplicateIsToldByTheWholeOriginHeaderReadOffTheValue() {
        long now = store.now();
        // pairs of origins: of 1-byte and 2-byte header lengths (over 127 bytes), differing only in their last byte,
        // and one the start of the other
        String longTopic = "t".repeat(140);
        List<List<String>> pairs = List.of(
                List.of(TOPIC + "/1/2", TOPIC + "/1/3"),
                List.of(longTopic + "/1/2", longTopic + "/1/3"),
                List.of(TOPIC + "/1/2", TOPIC + "/1/23"),
                List.of(longTopic + "/1/23", longTopic + "/1/2"));
        // both of one partition: the higher offset is the newer record, and an older one is dropped (SUPERSEDED),
        // not taken for a duplicate
        for (List<String> pair : pairs) {
            String job = explicitIdIn(1, "job-" + pairs.indexOf(pair));
            String origin = pair.get(0);
            String other = pair.get(1);
            boolean otherIsNewer = pairs.indexOf(pair) < 3;
            List<WriteResult> expected = otherIsNewer
                    ? List.of(
                            WriteResult.STORED,
                            WriteResult.DUPLICATE,
                            WriteResult.REPLACED,
                            WriteResult.DUPLICATE,
                            WriteResult.SUPERSEDED)
                    : List.of(
                            WriteResult.STORED,
                            WriteResult.DUPLICATE,
                            WriteResult.SUPERSEDED,
                            WriteResult.SUPERSEDED,
                            WriteResult.DUPLICATE);
            assertEquals(
                    expected,
                    write(
                            schedule(job, now - 1, origin, "first"),
                            schedule(job, now - 1, origin, "first"),
                            schedule(job, now - 1, other, "second"),
                            schedule(job, now - 1, other, "second"),
                            schedule(job, now - 1, origin, "first")),
                    pair.toString());
        }
        long epoch = store.acquire(1);
        ClaimBatch batch = store.claim(1, epoch, 10, LEASE);
        assertEquals(
                List.of("second", "second", "second", "first"),
                batch.messages().stream().map(ScheduleBatchIT::body).toList());
    }

    @Test
    void anOlderRecordAfterANewerOneInOneBatchIsDropped() {
        long now = store.now();
        String id = explicitIdIn(2, "order");
        assertEquals(
                List.of(WriteResult.STORED, WriteResult.SUPERSEDED, WriteResult.REPLACED),
                write(
                        schedule(id, now - 1, TOPIC + "/1/3", "newer", T + 2),
                        schedule(id, now - 1, TOPIC + "/0/9", "older", T + 1),
                        schedule(id, now - 1, TOPIC + "/3/1", "newest", T + 3)));
        ClaimBatch batch = store.claim(2, store.acquire(2), 10, LEASE);
        assertEquals(
                List.of("newest"),
                batch.messages().stream().map(ScheduleBatchIT::body).toList());
    }

    @Test
    void anAckDeletesWhatIsInFlightAndKeepsWhatWasReplacedOrReclaimedMeanwhile() {
        long now = store.now();
        String reclaimed = explicitIdIn(1, "reclaimed");
        assertEquals(List.of(WriteResult.STORED), write(schedule(reclaimed, now - 10, TOPIC + "/0/9", "reclaimed")));
        long epoch = store.acquire(1);
        ClaimedMessage firstDelivery = store.claim(1, epoch, 10, 1).messages().get(0);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (store.reclaim(1, epoch, 10) == 0) {
            assertTrue(System.nanoTime() < deadline, "a 1 ms lease did not run out within 10 s");
        }
        // due again at the reclaim's time: later than the four below

        List<String> jobs = new ArrayList<>();
        for (String name : List.of("a", "b", "c", "d")) {
            String job = explicitIdIn(1, name);
            jobs.add(job);
            assertEquals(List.of(WriteResult.STORED), write(schedule(job, now - 10, TOPIC + "/0/1", "old " + name)));
        }
        ClaimBatch batch = store.claim(1, epoch, 4, LEASE);
        assertEquals(
                jobs.stream()
                        .sorted(Comparator.comparing(router::member, Arrays::compareUnsigned))
                        .toList(),
                ids(batch),
                "equal due times: member order");
        // while the four are delivered, b is replaced and d cancelled
        assertEquals(
                List.of(WriteResult.REPLACED, WriteResult.CANCELLED),
                write(schedule(jobs.get(1), now - 5, TOPIC + "/0/2", "new b"), new WriteOp.Cancel(jobs.get(3))));

        List<MessageRef> acks = new ArrayList<>(
                batch.messages().stream().map(ClaimedMessage::ref).toList());
        acks.add(firstDelivery.ref());
        acks.add(acks.get(0)); // the same member twice in one ack
        assertEquals(2, store.ack(1, epoch, acks), "a and c were in flight");
        assertEquals(new ShardStats(1, 2, 0, now - 5), store.stats(1), "the new b and the reclaimed message stay");

        ClaimBatch rest = store.claim(1, epoch, 10, LEASE);
        assertEquals(List.of(jobs.get(1), reclaimed), ids(rest));
        assertEquals(
                List.of("new b", "reclaimed"),
                rest.messages().stream().map(ScheduleBatchIT::body).toList());
        assertEquals(
                List.of(1, 2),
                rest.messages().stream().map(ClaimedMessage::attempt).toList());
        assertEquals(
                2,
                store.ack(
                        1,
                        epoch,
                        rest.messages().stream().map(ClaimedMessage::ref).toList()));
        assertEquals(new ShardStats(1, 0, 0, -1), store.stats(1));
    }

    @Test
    void aBatchReplacingAMessageInFlightDropsTheOldLease() {
        long now = store.now();
        String job = explicitIdIn(1, "job");
        assertEquals(List.of(WriteResult.STORED), write(schedule(job, now - 10, TOPIC + "/0/1", "old")));
        long epoch = store.acquire(1);
        // delivered once, retried, and in flight for the second attempt
        ClaimedMessage firstAttempt =
                store.claim(1, epoch, 10, LEASE).messages().get(0);
        assertTrue(store.retry(1, epoch, firstAttempt.ref(), now - 10));
        ClaimedMessage old = store.claim(1, epoch, 10, LEASE).messages().get(0);
        assertEquals(2, old.attempt());
        assertEquals(new ShardStats(1, 0, 1, -1), store.stats(1));

        assertEquals(
                List.of(WriteResult.STORED, WriteResult.REPLACED, WriteResult.NOT_FOUND),
                write(
                        intakeRecord(1, 77, now + 60_000, "neighbour"),
                        schedule(job, now - 3, TOPIC + "/2/5", "new"),
                        new WriteOp.Cancel(explicitIdIn(0, "nothing"))));
        assertEquals(new ShardStats(1, 2, 0, now - 3), store.stats(1), "the new version pending, no lease left");

        assertEquals(0, store.ack(1, epoch, List.of(old.ref())), "the old delivery's ack deletes nothing");
        assertFalse(store.retry(1, epoch, old.ref(), now), "the old delivery's retry moves nothing");
        assertEquals(new ShardStats(1, 2, 0, now - 3), store.stats(1));

        ClaimBatch batch = store.claim(1, epoch, 10, LEASE);
        assertEquals(List.of(job), ids(batch));
        ClaimedMessage fresh = batch.messages().get(0);
        assertEquals("new", body(fresh));
        assertEquals(now - 3, fresh.dueAt());
        assertEquals(1, fresh.attempt(), "the replaced version's attempts are gone");
        assertEquals(1, store.ack(1, epoch, List.of(fresh.ref())));
        assertEquals(new ShardStats(1, 1, 0, now + 60_000), store.stats(1));
    }
}

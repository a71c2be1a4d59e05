package io.delaybridge.bridge.store.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.bridge.store.ClaimedMessage;
import io.delaybridge.bridge.store.ExpressCheck;
import io.delaybridge.bridge.store.FarEntry;
import io.delaybridge.bridge.store.FarHour;
import io.delaybridge.bridge.store.FarStore;
import io.delaybridge.bridge.store.ShardRouter;
import io.delaybridge.bridge.store.StoreFencedException;
import io.delaybridge.bridge.store.WriteOp;
import io.delaybridge.bridge.store.WriteResult;
import io.delaybridge.bridge.store.WrittenBatch;
import io.delaybridge.schemas.IntakeOrigin;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.TestServers;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The far tier in Redis while records wait there: what a far write keeps (an index entry, an explicit id's version,
 * no payload), and how replacements and cancels that come while a record waits far decide what its thaw stores.
 */
@ExtendWith(RealServersExtension.class)
class FarTierIT {

    private static final String TOPIC = "delay-intake";
    private static final int SHARDS = 4;
    private static final long LEASE = 30_000;

    private final TestServers servers;
    private final ShardRouter router = new ShardRouter(TOPIC, SHARDS);
    /** The intake's log as the thaw reads it: origin -> record. */
    private final Map<IntakeOrigin, WriteOp.Schedule> log = new HashMap<>();

    private RedisDelayStore store;
    private FarStore far;
    private long dueAt;

    FarTierIT(TestServers servers) {
        this.servers = servers;
    }

    @BeforeEach
    void open() {
        store = RedisDelayStore.connect(
                RedisStoreOptions.of(servers.redisUri(), TOPIC, SHARDS).withKeyPrefix(servers.unique("far")));
        far = store.far();
        dueAt = store.now() + 3 * FarEntry.HOUR_MILLIS;
    }

    @AfterEach
    void close() {
        store.close();
    }

    @Test
    void aFarRecordKeepsItsEntryNotItsPayloadAndThawsAsItWasWritten() {
        WriteOp.Schedule record = record(TOPIC + "-2-40", 2, 40, dueAt, 1_000, "payload");
        assertEquals(List.of(WriteResult.STORED), writeFar(record));
        assertEquals(0L, hashLength(store.keys().shard(2).msg()), "no payload in Redis while far");
        assertEquals(0L, store.stats(2).pending());
        assertEquals(1, far.farCount(2));
        assertEquals(
                List.of(WriteResult.STORED),
                writeFar(record),
                "read again in another batch: appended again, and the thaw stores it once");

        long epoch = store.acquire(2);
        assertEquals(List.of(WriteResult.STORED, WriteResult.DUPLICATE), thawAll(2, epoch));
        assertEquals(0, far.farCount(2), "the hour is gone once its records are hot");
        ClaimedMessage claimed = claimDue(2, epoch, dueAt);
        assertEquals(TOPIC + "-2-40", claimed.ref().id());
        assertEquals(dueAt, claimed.dueAt());
        assertEquals("payload", new String(claimed.envelope(), StandardCharsets.UTF_8));
    }

    @Test
    void anExplicitIdReplacedWhileFarThawsOnlyItsNewestVersion() {
        String id = "order-1";
        int shard = router.shardOf(id);
        assertEquals(List.of(WriteResult.STORED), writeFar(record(id, 0, 10, dueAt, 1_000, "v1")));
        assertEquals(
                new FarStore.FarVersion(0, 10, 1_000, dueAt), far.farVersion(id).orElseThrow());
        assertEquals(List.of(WriteResult.REPLACED), writeFar(record(id, 1, 20, dueAt + 5, 2_000, "v2")));
        assertEquals(List.of(WriteResult.SUPERSEDED), writeFar(record(id, 3, 30, dueAt + 9, 1_500, "older")));
        assertEquals(2_000, far.farVersion(id).orElseThrow().timestamp(), "the newest version is kept");

        long epoch = store.acquire(shard);
        List<WriteResult> thawed = thawAll(shard, epoch);
        assertEquals(1, thawed.stream().filter(r -> r == WriteResult.STORED).count(), thawed.toString());
        assertTrue(far.farVersion(id).isEmpty(), "hot now");
        assertEquals("v2", body(claimDue(shard, epoch, dueAt + 5)));
    }

    @Test
    void aNewerHotVersionDropsTheFarOneAndANewerFarVersionTakesAHotOneOut() {
        String id = "order-2";
        int shard = router.shardOf(id);
        writeFar(record(id, 0, 10, dueAt, 1_000, "far"));
        long soon = store.now() + 60_000;
        assertEquals(List.of(WriteResult.REPLACED), write(record(id, 1, 11, soon, 2_000, "hot")));
        assertTrue(far.farVersion(id).isEmpty(), "the far version went with the replacement");
        assertEquals(1L, store.stats(shard).pending());

        assertEquals(List.of(WriteResult.REPLACED), writeFar(record(id, 2, 12, dueAt + 1, 3_000, "far again")));
        assertEquals(0L, store.stats(shard).pending(), "the hot version left the hot tier");
        long epoch = store.acquire(shard);
        List<WriteResult> thawed = thawAll(shard, epoch);
        assertEquals(
                List.of(WriteResult.STORED, WriteResult.SUPERSEDED),
                thawed.stream().sorted().toList(),
                "the first far version is no longer the id's");
        assertEquals("far again", body(claimDue(shard, epoch, dueAt + 1)));
    }

    @Test
    void cancelsWhileFarDropTheRecordAtItsThaw() {
        String explicit = "order-3";
        int shard = router.shardOf(explicit);
        writeFar(record(explicit, 0, 10, dueAt, 1_000, "x"));
        assertEquals(WriteResult.CANCELLED, writeOne(new WriteOp.Cancel(explicit, 2_000, 0)));
        assertTrue(far.farVersion(explicit).isEmpty());

        String defaultId = TOPIC + "-" + shard + "-77";
        writeFar(record(defaultId, shard, 77, dueAt, 1_000, "y"));
        writeOne(new WriteOp.Cancel(defaultId, 2_000, 0)); // from another partition: not found hot
        // the remembered cancels are forgotten (intake.cancelMemory) long before a far record thaws
        writeOne(new WriteOp.Cancel(idIn(shard), 9_000, 5_000));
        assertEquals(1L, zsetSize(store.keys().shard(shard).cancelled()), "only the last cancel is remembered");

        long epoch = store.acquire(shard);
        assertTrue(thawAll(shard, epoch).stream().noneMatch(r -> r == WriteResult.STORED));
        assertEquals(0L, store.stats(shard).pending(), "neither cancelled record came back");
    }

    @Test
    void aThawedFarVersionLeavesTheFarTierEvenWhenItIsNotStored() {
        String id = "order-4";
        int shard = router.shardOf(id);
        writeFar(record(id, 0, 10, dueAt, 1_000, "x"));
        // a cancel remembered beside a far version that is still the id's (not reached through the scripts today)
        store.access()
                .await(
                        store.access().commands().zadd(store.keys().shard(shard).cancelled(), 5_000, router.member(id)),
                        "ZADD");
        assertEquals(List.of(WriteResult.ALREADY_CANCELLED), thawAll(shard, store.acquire(shard)));
        assertTrue(far.farVersion(id).isEmpty(), "no far version is left behind");
    }

    @Test
    void aDefaultIdNamedByANewerRecordStaysDroppedAfterTheNewerOneWasDelivered() {
        int shard = 1;
        String id = TOPIC + "-1-5";
        writeFar(record(id, 1, 5, dueAt, 1_000, "original"));
        long soon = store.now() - 1;
        // a replacement names the id from partition 3, due now: stored hot, delivered, acked
        assertEquals(List.of(WriteResult.STORED), write(record(id, 3, 9, soon, 2_000, "replacement")));
        long epoch = store.acquire(shard);
        ClaimedMessage delivered = claimDue(shard, epoch, soon);
        assertEquals("replacement", body(delivered));
        store.ack(shard, epoch, List.of(delivered.ref()));

        assertEquals(List.of(WriteResult.SUPERSEDED), thawAll(shard, epoch), "the original is older");
        assertEquals(0L, store.stats(shard).pending());
    }

    @Test
    void aRecordWrittenFarByOneReaderAndHotByTheNextIsDeliveredOnce() {
        int shard = 2;
        // one due hour; the record stored hot beside the one claimed is due half an hour later, so that the claim's
        // look-ahead, which grows while a busy machine delays the claim, cannot reach it
        long due = dueAt - Math.floorMod(dueAt, FarEntry.HOUR_MILLIS) + 1_000;
        WriteOp.Schedule neighbour = record(TOPIC + "-2-42", 2, 42, due + 1, 1_001, "neighbour");
        assertEquals(List.of(WriteResult.STORED), writeFar(neighbour));
        // a record after every one written far: it cannot be far as well, no drop
        long later = due + FarEntry.HOUR_MILLIS / 2;
        assertEquals(List.of(WriteResult.STORED), write(record(TOPIC + "-2-43", 2, 43, later, 999, "hot")));
        assertEquals(0L, zsetSize(store.keys().shard(shard).farGone()));
        // a reader wrote it far and halted before its commit; the next read it again, nearer its due time: hot
        WriteOp.Schedule record = record(TOPIC + "-2-41", 2, 41, due, 1_000, "payload");
        assertEquals(List.of(WriteResult.STORED), writeFar(record));
        assertEquals(List.of(WriteResult.STORED), write(record));
        long epoch = store.acquire(shard);
        ClaimedMessage delivered = claimDue(shard, epoch, due);
        assertEquals("payload", body(delivered));
        store.ack(shard, epoch, List.of(delivered.ref()));
        // a replacement of the same millisecond, read after it, is not taken for its far entry
        assertEquals(List.of(WriteResult.STORED), write(record(record.id(), 3, 9, due + 3, 1_000, "again")));
        List<WriteResult> thawed = thawAll(shard, epoch);
        assertEquals(
                List.of(WriteResult.STORED, WriteResult.SUPERSEDED),
                thawed.stream().sorted().toList(),
                "the far entry of the record delivered hot is dropped, its neighbour's is not: " + thawed);
        assertEquals(3L, store.stats(shard).pending(), "the neighbour, thawed, the record after it, the replacement");
    }

    @Test
    void aRecordDueNowWhoseHourHoldsFarEntriesIsParkedNotSentExpress() throws Exception {
        long now = store.now();
        // written far by a reader that halted before its commit; sent express, its far entry would come back
        assertEquals(List.of(WriteResult.STORED), writeFar(record(TOPIC + "-1-7", 1, 7, now, 1_000, "far")));
        WrittenBatch checked = store.write(
                        List.of(),
                        List.of(),
                        List.of(
                                new ExpressCheck(TOPIC + "-1-7", now),
                                new ExpressCheck(TOPIC + "-1-8", now + 2 * FarEntry.HOUR_MILLIS),
                                new ExpressCheck(TOPIC + "-3-7", now)))
                .get(10, TimeUnit.SECONDS);
        assertFalse(checked.passed().get(0), "its due hour holds far entries: parked");
        assertTrue(checked.passed().get(1), "another hour of the same shard");
        assertTrue(checked.passed().get(2), "a shard without far entries");
    }

    @Test
    void onlyTheOwnerThawsAndAnOperatorsThawIsNotRepeatedByTheHour() {
        int shard = 3;
        WriteOp.Schedule record = record(TOPIC + "-3-8", 3, 8, dueAt, 1_000, "z");
        writeFar(record);
        long epoch = store.acquire(shard);
        store.acquire(shard); // a newer owner
        CompletionException e = assertThrows(
                CompletionException.class,
                () -> far.thaw(shard, epoch, List.of(hot(record))).join());
        assertInstanceOf(StoreFencedException.class, e.getCause());
        FarHour read = far.readFar(shard, record.dueAt() / FarEntry.HOUR_MILLIS, 0);
        assertThrows(StoreFencedException.class, () -> far.farThawed(shard, epoch, read.hour(), read.length(), 0));

        assertEquals(
                List.of(WriteResult.STORED),
                far.thaw(shard, FarStore.ADMIN, List.of(hot(record))).join());
        long owner = store.acquire(shard);
        ClaimedMessage fired = claimDue(shard, owner, dueAt);
        store.ack(shard, owner, List.of(fired.ref()));
        assertEquals(List.of(WriteResult.SUPERSEDED), thawAll(shard, owner), "fired by the operator already");
        assertEquals(0L, zsetSize(store.keys().shard(shard).farGone()), "no far drop outlives the far hours");
    }

    @Test
    void anHourThawedAgainAfterAThawThatStoppedHalfwayStoresNothingTwice() {
        int shard = 2;
        for (int i = 0; i < 3; i++) {
            writeFar(record(TOPIC + "-2-" + (50 + i), 2, 50 + i, dueAt + i, 1_000 + i, "r" + i));
        }
        long hour = dueAt / FarEntry.HOUR_MILLIS;
        long epoch = store.acquire(shard);
        FarHour read = far.readFar(shard, hour, 0);
        assertEquals(3, read.slots().size());
        assertEquals(
                List.of(WriteResult.STORED, WriteResult.STORED),
                thawSlots(shard, epoch, hour, read.slots().subList(0, 2)),
                "the first slice goes hot; the owner halts before the hour goes");
        List<ClaimedMessage> delivered = store.claimAsync(shard, epoch, 10, LEASE, 3 * FarEntry.HOUR_MILLIS)
                .join()
                .messages();
        assertEquals(2, delivered.size());
        store.ack(shard, epoch, delivered.stream().map(ClaimedMessage::ref).toList());
        assertEquals(0L, store.stats(shard).pending(), "delivered and acked: the hot tier holds neither");

        long next = store.acquire(shard);
        FarHour again = far.readFar(shard, hour, 0);
        assertEquals(List.of(read.slots().get(2)), again.slots(), "the next owner reads only the entry not yet thawed");
        assertEquals(
                List.of(WriteResult.DUPLICATE, WriteResult.DUPLICATE, WriteResult.STORED),
                thawSlots(shard, next, hour, read.slots()),
                "a thaw from a read made before the marks stores neither delivered record again");
        assertEquals(1L, store.stats(shard).pending());
        assertEquals(0, far.farThawed(shard, next, hour, again.length(), 0), "the hour goes");
        assertEquals("r2", body(claimDue(shard, next, dueAt + 2)));
    }

    @Test
    void entriesFarApartInTheirHourAreMarkedOneByOneAndTheirNeighboursKept() {
        int shard = 1;
        WriteOp.Schedule first = record(TOPIC + "-1-60", 1, 60, dueAt, 1_000, "first");
        writeFar(first);
        List<FarEntry> between = new ArrayList<>();
        for (int i = 0; i < 6_000; i++) { // 72,000 bytes: beyond the span the script reads at once
            between.add(new FarEntry(1, 1_000 + i, dueAt + 1));
        }
        assertEquals(6_000, FarAppend.append(store, shard, between));
        WriteOp.Schedule last = record(TOPIC + "-1-61", 1, 61, dueAt + 2, 1_001, "last");
        writeFar(last);
        long hour = dueAt / FarEntry.HOUR_MILLIS;
        long epoch = store.acquire(shard);
        FarHour read = far.readFar(shard, hour, 0);
        List<FarHour.Slot> ends = read.slots().stream()
                .filter(slot -> slot.entry().offset() < 1_000)
                .toList();
        assertEquals(
                List.of(0, 6_001 * 12),
                ends.stream().map(FarHour.Slot::position).toList());
        assertEquals(List.of(WriteResult.STORED, WriteResult.STORED), thawSlots(shard, epoch, hour, ends));
        assertEquals(
                List.of(WriteResult.DUPLICATE, WriteResult.DUPLICATE),
                thawSlots(shard, epoch, hour, ends),
                "marked, each on its own");
        assertEquals(between, far.readFar(shard, hour, 0).entries(), "the entries between are untouched");
    }

    // ------------------------------------------------------------------------------------------------ helpers

    private WriteOp.Schedule record(String id, int partition, long offset, long due, long timestamp, String body) {
        WriteOp.Schedule s = new WriteOp.Schedule(
                id, due, new IntakeOrigin(TOPIC, partition, offset), body.getBytes(StandardCharsets.UTF_8), timestamp);
        log.put(s.origin(), s);
        return s;
    }

    private String idIn(int shard) {
        for (int i = 0; ; i++) {
            if (router.shardOf("other-" + i) == shard) {
                return "other-" + i;
            }
        }
    }

    private static WriteOp.Schedule hot(WriteOp.Schedule s) {
        return new WriteOp.Schedule(s.id(), s.dueAt(), s.origin(), s.envelope(), s.timestamp());
    }

    private List<WriteResult> writeFar(WriteOp.Schedule s) {
        return write(new WriteOp.Schedule(s.id(), s.dueAt(), s.origin(), null, s.timestamp(), true));
    }

    private WriteResult writeOne(WriteOp op) {
        return write(op).get(0);
    }

    private List<WriteResult> write(WriteOp op) {
        try {
            return store.write(List.of(op)).get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("write failed", e);
        }
    }

    /** Thaws every far hour of {@code shard} as its owner, from the log; the results of all thaw calls. */
    private List<WriteResult> thawAll(int shard, long epoch) {
        List<WriteResult> results = new ArrayList<>();
        for (long hour : far.farHours(shard, Long.MAX_VALUE)) {
            FarHour read = far.readFar(shard, hour, 0);
            results.addAll(thawSlots(shard, epoch, read.hour(), read.slots()));
            assertEquals(0, far.farThawed(shard, epoch, hour, read.length(), 0));
        }
        return results;
    }

    /** Thaws the records of {@code slots} (of {@code hour}) from the log as the owner does, one record per slot. */
    private List<WriteResult> thawSlots(int shard, long epoch, long hour, List<FarHour.Slot> slots) {
        List<WriteOp.Schedule> records = slots.stream()
                .map(slot -> hot(log.get(new IntakeOrigin(
                        TOPIC, slot.entry().partition(), slot.entry().offset()))))
                .toList();
        List<List<FarHour.Slot>> each = slots.stream().map(List::of).toList();
        return far.thaw(shard, epoch, hour, records, each).join();
    }

    /** Claims the one message due at {@code due} (taking everything due by then). */
    private ClaimedMessage claimDue(int shard, long epoch, long due) {
        long lookAhead = Math.max(0, due - store.now());
        List<ClaimedMessage> messages =
                store.claimAsync(shard, epoch, 10, LEASE, lookAhead).join().messages();
        assertEquals(
                1,
                messages.size(),
                messages.stream().map(m -> m.ref().id()).toList().toString());
        return messages.get(0);
    }

    private static String body(ClaimedMessage message) {
        return new String(message.envelope(), StandardCharsets.UTF_8);
    }

    private long hashLength(byte[] key) {
        return store.access().await(store.access().commands().hlen(key), "HLEN");
    }

    private long zsetSize(byte[] key) {
        return store.access().await(store.access().commands().zcard(key), "ZCARD");
    }
}

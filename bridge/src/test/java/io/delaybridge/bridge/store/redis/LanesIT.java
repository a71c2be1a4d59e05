package io.delaybridge.bridge.store.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.bridge.store.ClaimBatch;
import io.delaybridge.bridge.store.ClaimedMessage;
import io.delaybridge.bridge.store.MessageAdmin;
import io.delaybridge.bridge.store.WriteOp;
import io.delaybridge.schemas.Envelope;
import io.delaybridge.schemas.EnvelopeCodec;
import io.delaybridge.schemas.IntakeOrigin;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.TestServers;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A shard's lanes (lanes.lua) on a real Redis: one sorted set of due messages per target topic and an index of their
 * first due times, so that a claim takes from every due target in turn; and the lane of messages stored before lanes,
 * still claimed, cancelled and moved. Due times are relative to Redis' clock; no test waits.
 */
@ExtendWith(RealServersExtension.class)
class LanesIT {

    private static final String TOPIC = RawAccessStore.TOPIC;
    private static final long LEASE = 30_000;

    private final TestServers servers;
    private RawAccessStore redis;
    private RedisDelayStore store;
    private RedisCommands<byte[], byte[]> raw;

    LanesIT(TestServers servers) {
        this.servers = servers;
    }

    @BeforeEach
    void open() {
        redis = new RawAccessStore(servers, "lanes");
        store = redis.store;
        StatefulRedisConnection<byte[], byte[]> connection = redis.raw;
        raw = connection.sync();
    }

    @AfterEach
    void close() {
        redis.close();
    }

    private static byte[] envelope(String target, String text) {
        return EnvelopeCodec.encode(
                new Envelope(target, null, "", null, text.getBytes(StandardCharsets.UTF_8), List.of()));
    }

    /** Intake partition 0's record at {@code offset} (shard 0), for {@code target}, its offset as its text. */
    private static WriteOp.Schedule record(long offset, long dueAt, String target) {
        return new WriteOp.Schedule(
                TOPIC + "-0-" + offset, dueAt, new IntakeOrigin(TOPIC, 0, offset), envelope(target, "" + offset));
    }

    private void write(List<WriteOp> ops) {
        try {
            store.write(ops).get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("write failed", e);
        }
    }

    private static String target(ClaimedMessage m) {
        return EnvelopeCodec.decode(m.envelope()).target();
    }

    private static long offset(ClaimedMessage m) {
        return Long.parseLong(new String(EnvelopeCodec.decode(m.envelope()).value(), StandardCharsets.UTF_8));
    }

    private byte[] lane(String target) {
        return store.keys().lane(0, target);
    }

    private Double indexed(String target) {
        return raw.zscore(store.keys().lanes(0), target.getBytes(StandardCharsets.UTF_8));
    }

    private String explicitIdInShard0() {
        for (int i = 0; ; i++) {
            if (store.router().shardOf("order-" + i) == 0) {
                return "order-" + i;
            }
        }
    }

    @Test
    void aTargetsBacklogTakesNoMoreThanItsShareOfAClaim() {
        long now = store.now();
        List<WriteOp> ops = new ArrayList<>();
        for (long offset = 0; offset < 1_000; offset++) {
            ops.add(record(offset, now - 2_000, "bulk"));
        }
        for (long offset = 1_000; offset < 1_005; offset++) {
            ops.add(record(offset, now - 1_000 + offset, "quiet"));
        }
        write(ops);

        ClaimBatch batch = store.claim(0, store.acquire(0), 100, LEASE);

        assertEquals(100, batch.messages().size());
        List<Long> quiet = batch.messages().stream()
                .filter(m -> target(m).equals("quiet"))
                .map(LanesIT::offset)
                .toList();
        assertEquals(List.of(1_000L, 1_001L, 1_002L, 1_003L, 1_004L), quiet, "the quiet target's all, behind 1,000");
        List<Long> bulk = batch.messages().stream()
                .filter(m -> target(m).equals("bulk"))
                .map(LanesIT::offset)
                .toList();
        List<Long> first95 = new ArrayList<>();
        for (long offset = 0; offset < 95; offset++) {
            first95.add(offset);
        }
        assertEquals(first95, bulk, "the backlog's first, in intake order");
        for (int i = 1; i < batch.messages().size(); i++) {
            assertTrue(
                    batch.messages().get(i - 1).dueAt()
                            <= batch.messages().get(i).dueAt(),
                    "the batch in due order");
        }
        assertEquals(905, raw.zcard(lane("bulk")));
        assertEquals(0, raw.exists(lane("quiet")));
        assertNull(indexed("quiet"), "an empty lane leaves the index");
        assertEquals(now - 2_000, indexed("bulk"), 0.0);
        assertEquals(now - 2_000, batch.nextDueAt());
    }

    @Test
    void aClaimSharesItsBatchByTheTargetsWeights() {
        try (RedisDelayStore weighted =
                RedisDelayStore.connect(RedisStoreOptions.of(servers.redisUri(), TOPIC, RawAccessStore.SHARDS)
                        .withKeyPrefix(servers.unique("weights"))
                        .withLaneWeights(Map.of("heavy", 3)))) {
            long now = weighted.now();
            List<WriteOp> ops = new ArrayList<>();
            for (long offset = 0; offset < 2_000; offset++) {
                ops.add(record(offset, now - 1_000, offset % 2 == 0 ? "heavy" : "light"));
            }
            try {
                weighted.write(ops).get(10, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new AssertionError("write failed", e);
            }

            ClaimBatch batch = weighted.claim(0, weighted.acquire(0), 100, LEASE);

            assertEquals(
                    75,
                    batch.messages().stream()
                            .filter(m -> target(m).equals("heavy"))
                            .count(),
                    "3 of 4");
            assertEquals(
                    25,
                    batch.messages().stream()
                            .filter(m -> target(m).equals("light"))
                            .count(),
                    "1 of 4");
        }
    }

    @Test
    void eachLaneAndItsIndexEntryFollowItsMessages() {
        long now = store.now();
        String explicit = explicitIdInShard0();
        write(List.of(
                record(1, now + 60_000, "bulk"),
                record(2, now + 70_000, "bulk"),
                record(3, now + 30_000, "quiet"),
                new WriteOp.Schedule(
                        explicit, now + 80_000, new IntakeOrigin(TOPIC, 0, 4), envelope("bulk", "9"), 1_000)));
        assertEquals(3, raw.zcard(lane("bulk")));
        assertEquals(now + 60_000, indexed("bulk"), 0.0);
        assertEquals(now + 30_000, indexed("quiet"), 0.0);
        assertEquals(0, raw.exists(store.keys().shard(0).due()), "nothing in the old lane");
        assertEquals(now + 30_000, store.nextDueAt(0).getAsLong());

        write(List.of(new WriteOp.Cancel(TOPIC + "-0-3")));
        assertNull(indexed("quiet"), "cancelled: its lane is empty");
        assertEquals(now + 60_000, store.nextDueAt(0).getAsLong());

        write(List.of(new WriteOp.Schedule(
                explicit, now + 20_000, new IntakeOrigin(TOPIC, 0, 5), envelope("quiet", "9b"), 2_000)));
        assertEquals(2, raw.zcard(lane("bulk")), "the replacement left its old target's lane");
        assertEquals(now + 20_000, indexed("quiet"), 0.0);
        write(List.of(new WriteOp.Cancel(explicit)));

        MessageAdmin admin = store.messageAdmin();
        assertEquals(MessageAdmin.RescheduleResult.RESCHEDULED, admin.reschedule(TOPIC + "-0-1", now + 90_000));
        assertEquals(now + 70_000, indexed("bulk"), 0.0, "its first moved later");
        assertEquals(now + 90_000, admin.inspect(TOPIC + "-0-1").orElseThrow().dueAt());
        assertEquals(2, store.stats(0).pending(), "counted over the lanes");
        assertEquals(2, admin.countDue(0, now, now + 100_000), "shard 0: two of bulk");
        assertEquals(
                List.of(TOPIC + "-0-2", TOPIC + "-0-1"),
                admin.scanDue(0, now, now + 100_000, 0, 10).stream()
                        .map(MessageAdmin.StoredMessage::id)
                        .toList());
    }

    @Test
    void messagesStoredBeforeLanesAreStillClaimedCancelledAndMoved() {
        long now = store.now();
        write(List.of(
                record(1, now - 3_000, "old"),
                record(2, now - 2_000, "old"),
                record(3, now - 1_000, "old"),
                record(4, now - 500, "new")));
        // as a store written before lanes holds them: in the shard's due set, no index entry
        byte[] due = store.keys().shard(0).due();
        for (long offset = 1; offset <= 3; offset++) {
            byte[] member = store.router().member(TOPIC + "-0-" + offset);
            Double score = raw.zscore(lane("old"), member);
            raw.zrem(lane("old"), member);
            raw.zadd(due, score, member);
        }
        raw.zrem(store.keys().lanes(0), "old".getBytes(StandardCharsets.UTF_8));
        assertEquals(4, store.stats(0).pending());
        assertEquals(now - 3_000, store.nextDueAt(0).getAsLong());
        MessageAdmin admin = store.messageAdmin();
        assertEquals(now - 2_000, admin.inspect(TOPIC + "-0-2").orElseThrow().dueAt());

        assertEquals(MessageAdmin.RescheduleResult.RESCHEDULED, admin.reschedule(TOPIC + "-0-2", now - 100));
        assertEquals(1, raw.zcard(lane("old")), "moved: into its target's lane");
        assertFalse(raw.zscore(due, store.router().member(TOPIC + "-0-2")) != null, "and out of the old one");
        write(List.of(new WriteOp.Cancel(TOPIC + "-0-3")));
        assertEquals(1, raw.zcard(due));

        ClaimBatch batch = store.claim(0, store.acquire(0), 10, LEASE);
        assertEquals(
                List.of(1L, 4L, 2L),
                batch.messages().stream().map(LanesIT::offset).toList(),
                "every lane, the old one too, in due order");
        assertEquals(0, raw.exists(due, lane("old"), lane("new"), store.keys().lanes(0)));
        assertEquals(-1, batch.nextDueAt());
    }
}

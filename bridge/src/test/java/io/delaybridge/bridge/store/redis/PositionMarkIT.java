package io.delaybridge.bridge.store.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.bridge.store.PositionMark;
import io.delaybridge.bridge.store.StoreDataLostException;
import io.delaybridge.bridge.store.StoreGapException;
import io.delaybridge.bridge.store.WriteOp;
import io.delaybridge.bridge.store.WriteResult;
import io.delaybridge.schemas.IntakeOrigin;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.RedisCluster;
import io.delaybridge.testkit.RedisServer;
import io.delaybridge.testkit.TestServers;
import io.lettuce.core.api.StatefulRedisConnection;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code mark.lua} on a real Redis: the position marks written behind write batches, and the gap a batch finds when the
 * store holds less than it acknowledged (simulated here as a replica that missed the master's tail would look: the
 * tail's records and the mark that followed them are gone).
 */
@ExtendWith(RealServersExtension.class)
class PositionMarkIT {

    private static final String TOPIC = RawAccessStore.TOPIC;
    private static final long UNKNOWN = PositionMark.UNKNOWN;

    private final TestServers servers;
    private RawAccessStore redis;
    private RedisDelayStore store;
    private StatefulRedisConnection<byte[], byte[]> raw;

    PositionMarkIT(TestServers servers) {
        this.servers = servers;
    }

    @BeforeEach
    void open() {
        redis = new RawAccessStore(servers, "pos");
        store = redis.store;
        raw = redis.raw;
    }

    @AfterEach
    void close() {
        redis.close();
    }

    /** Schedules of intake partition {@code partition}'s offsets [from, to), due in an hour. */
    private List<WriteOp> records(int partition, long from, long to) {
        List<WriteOp> ops = new ArrayList<>();
        for (long offset = from; offset < to; offset++) {
            ops.add(new WriteOp.Schedule(
                    TOPIC + "-" + partition + "-" + offset,
                    store.now() + 3_600_000,
                    new IntakeOrigin(TOPIC, partition, offset),
                    ("m" + offset).getBytes(StandardCharsets.UTF_8)));
        }
        return ops;
    }

    private List<WriteResult> write(List<WriteOp> ops, PositionMark... marks) throws Exception {
        return store.write(ops, List.of(marks)).get(10, TimeUnit.SECONDS);
    }

    @Test
    void marksAdvanceThePositionAndNeverMoveItBack() throws Exception {
        write(records(0, 0, 10), new PositionMark(0, UNKNOWN, 10));
        assertEquals(Map.of(0, 10L), store.positions(List.of(0, 1)), "partition 1 has no position yet");
        write(records(0, 10, 20), new PositionMark(0, 10, 20));
        // a batch read again after a rewind: its writes are duplicates and the position stays
        List<WriteResult> again = write(records(0, 5, 15), new PositionMark(0, 5, 15));
        assertTrue(again.stream().allMatch(r -> r == WriteResult.DUPLICATE), again.toString());
        assertEquals(Map.of(0, 20L), store.positions(List.of(0)));
        // a poll of refused records only: no operation, the mark alone
        write(List.of(), new PositionMark(0, 20, 23));
        assertEquals(Map.of(0, 23L), store.positions(List.of(0)));
    }

    @Test
    void aMissingPositionIsAcceptedAsFromANewStoreOrAnOlderBridge() throws Exception {
        write(records(1, 500, 510), new PositionMark(1, 500, 510));
        assertEquals(Map.of(1, 510L), store.positions(List.of(1)));
    }

    @Test
    void aStoreThatLostItsTailFailsTheNextBatchWithTheLostRange() throws Exception {
        write(records(2, 0, 20), new PositionMark(2, UNKNOWN, 20));
        write(records(2, 20, 30), new PositionMark(2, 20, 30));
        // as a replica that missed the last batch looks once promoted: its records and its mark are gone
        RedisKeys.ShardKeys shard = store.keys().shard(2);
        for (long offset = 20; offset < 30; offset++) {
            byte[] member = store.router().member(TOPIC + "-2-" + offset);
            raw.sync().zrem(shard.due(), member);
            raw.sync().hdel(shard.msg(), member);
        }
        raw.sync().hset(shard.positions(), "2".getBytes(StandardCharsets.UTF_8), "20".getBytes(StandardCharsets.UTF_8));

        ExecutionException failed =
                assertThrows(ExecutionException.class, () -> write(records(2, 30, 40), new PositionMark(2, 30, 40)));
        StoreGapException gap = assertInstanceOf(StoreGapException.class, failed.getCause());
        assertEquals(List.of(new StoreGapException.Gap(2, 20, 30)), gap.gaps());
        assertTrue(gap.getMessage().contains("partition 2 offsets [20, 30)"), gap.getMessage());
        assertEquals(Map.of(2, 20L), store.positions(List.of(2)), "a gap does not advance the position");
        // the batch's own writes were applied (idempotent): reading again from 20 stores the lost ones and moves on
        List<WriteResult> reread = write(records(2, 20, 40), new PositionMark(2, 20, 40));
        assertEquals(10, reread.stream().filter(r -> r == WriteResult.STORED).count(), reread.toString());
        assertEquals(Map.of(2, 40L), store.positions(List.of(2)));
        assertEquals(40, raw.sync().zcard(shard.due()));
    }

    @Test
    void aGapInOnePartitionNamesItWhileTheOtherPartitionsMarksAdvance() throws Exception {
        write(records(0, 0, 10), new PositionMark(0, UNKNOWN, 10), new PositionMark(3, UNKNOWN, 7));
        raw.sync()
                .hset(
                        store.keys().shard(3).positions(),
                        "3".getBytes(StandardCharsets.UTF_8),
                        "2".getBytes(StandardCharsets.UTF_8));
        ExecutionException failed = assertThrows(
                ExecutionException.class,
                () -> write(records(0, 10, 12), new PositionMark(0, 10, 12), new PositionMark(3, 7, 9)));
        assertEquals(
                List.of(new StoreGapException.Gap(3, 2, 7)),
                assertInstanceOf(StoreGapException.class, failed.getCause()).gaps());
        assertEquals(Map.of(0, 12L, 3, 2L), store.positions(List.of(0, 3)));
    }

    /**
     * On a cluster a batch's explicit ids live on other masters than the partition's own shard, so every mark goes into
     * every shard: a master that lost the tail of what the batch wrote to it is found whichever it is.
     */
    @Test
    void onAClusterAShardOnAnotherMasterThatLostItsTailIsAGapToo(@TempDir Path dir) throws Exception {
        try (RedisCluster cluster = RedisCluster.start(dir, 3, 0);
                RedisDelayStore clustered = RedisDelayStore.connect(
                        RedisStoreOptions.of(cluster.uri(), TOPIC, 16).withKeyPrefix(servers.unique("cpos")))) {
            String explicit = null;
            for (int i = 0; explicit == null; i++) {
                int shard = clustered.router().place("order-" + i).shard();
                if (!clustered.nodeOf(shard).equals(clustered.nodeOf(0))) {
                    explicit = "order-" + i;
                }
            }
            int other = clustered.router().place(explicit).shard();
            long due = clustered.now() + 3_600_000;
            byte[] body = "m".getBytes(StandardCharsets.UTF_8);
            clustered
                    .write(
                            List.of(
                                    new WriteOp.Schedule(TOPIC + "-0-0", due, new IntakeOrigin(TOPIC, 0, 0), body),
                                    new WriteOp.Schedule(explicit, due, new IntakeOrigin(TOPIC, 0, 1), body)),
                            List.of(new PositionMark(0, UNKNOWN, 2)))
                    .get(10, TimeUnit.SECONDS);
            assertEquals(Map.of(0, 2L), clustered.positions(List.of(0)), "every shard holds the mark");

            // the other master "lost" its tail: the explicit id and the mark behind it
            RedisServer node =
                    cluster.masterOfKey(new String(clustered.keys().shard(other).positions(), StandardCharsets.UTF_8));
            node.call("HSET", new String(clustered.keys().shard(other).positions(), StandardCharsets.UTF_8), "0", "1");
            assertEquals(Map.of(0, 1L), clustered.positions(List.of(0)), "the lowest shard tells");
            ExecutionException failed = assertThrows(
                    ExecutionException.class,
                    () -> clustered
                            .write(
                                    List.of(new WriteOp.Schedule(
                                            TOPIC + "-0-2", due, new IntakeOrigin(TOPIC, 0, 2), body)),
                                    List.of(new PositionMark(0, 2, 3)))
                            .get(10, TimeUnit.SECONDS));
            assertEquals(
                    List.of(new StoreGapException.Gap(0, 1, 2)),
                    assertInstanceOf(StoreGapException.class, failed.getCause()).gaps());
        }
    }

    @Test
    void aShardThatLostEverythingIsDataLossNotAGap() throws Exception {
        write(List.of(), new PositionMark(1, UNKNOWN, 5));
        raw.sync().del(store.keys().shard(1).incarnation());
        ExecutionException failed =
                assertThrows(ExecutionException.class, () -> write(List.of(), new PositionMark(1, 5, 6)));
        assertInstanceOf(StoreDataLostException.class, failed.getCause());
    }
}

package io.delaybridge.bridge.store.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.delaybridge.bridge.store.PositionMark;
import io.delaybridge.bridge.store.StoreFencedException;
import io.delaybridge.bridge.store.WriteOp;
import io.delaybridge.bridge.store.WriteResult;
import io.delaybridge.schemas.IntakeOrigin;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.TestServers;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The intake's writes fenced by the epochs its instance holds: a zombie (stopped past its session, its shard taken by
 * another instance meanwhile) cannot store again a record that the shard's new owner may have delivered and acked.
 */
@ExtendWith(RealServersExtension.class)
class WriteFenceIT {

    private static final String TOPIC = "delay-intake";
    private static final int SHARDS = 4;

    private final TestServers servers;
    /** The epochs "this instance" holds: shard -> epoch. */
    private final Map<Integer, Long> held = new ConcurrentHashMap<>();

    private RedisDelayStore store;

    WriteFenceIT(TestServers servers) {
        this.servers = servers;
    }

    @BeforeEach
    void open() {
        store = RedisDelayStore.connect(
                RedisStoreOptions.of(servers.redisUri(), TOPIC, SHARDS).withKeyPrefix(servers.unique("fence")));
        store.fenceWrites(shard -> held.getOrDefault(shard, -1L));
    }

    @AfterEach
    void close() {
        store.close();
    }

    @Test
    void aWriteUnderAStaleEpochStoresNothingAndOneUnderTheShardsEpochStores() {
        held.put(1, store.acquire(1));
        assertEquals(
                List.of(WriteResult.STORED),
                store.write(List.of(schedule(1, 10))).join());

        long newOwner = store.acquire(1); // another instance took the shard; this one still holds the old epoch
        CompletionException refused = assertThrows(
                CompletionException.class,
                () -> store.write(List.of(schedule(1, 11)), List.of(new PositionMark(1, 11, 12)))
                        .join());
        assertInstanceOf(StoreFencedException.class, refused.getCause());
        assertEquals(1, store.stats(1).pending(), "the fenced write stored nothing");

        held.put(1, newOwner); // this instance takes the shard again
        assertEquals(
                List.of(WriteResult.STORED),
                store.write(List.of(schedule(1, 11))).join());
        assertEquals(2, store.stats(1).pending());
    }

    @Test
    void shardsThisInstanceDoesNotHoldAreWrittenUnfenced() {
        held.put(2, store.acquire(2));
        store.acquire(2); // shard 2 moved on: only its writes are refused
        store.acquire(3); // shard 3 has an owner, but not this instance (an explicit id's shard, say)
        assertEquals(
                List.of(WriteResult.STORED),
                store.write(List.of(schedule(3, 5))).join());
        assertThrows(
                CompletionException.class,
                () -> store.write(List.of(schedule(2, 5))).join());

        held.remove(2); // the intake let the partition go: no fence, as for any instance that never held it
        assertEquals(
                List.of(WriteResult.STORED),
                store.write(List.of(schedule(2, 5))).join());
    }

    @Test
    void aThawIsFencedByItsOwnEpochNotByTheIntakesFence() {
        long epoch = store.acquire(0);
        held.put(0, epoch - 1); // a stale intake fence does not stop the owner's thaw
        WriteOp.Schedule record = schedule(0, 7);
        assertEquals(
                List.of(WriteResult.STORED),
                store.far().thaw(0, epoch, List.of(record)).join());
        assertEquals(1, store.stats(0).pending());
    }

    /** A record of {@code partition} at {@code offset}, with its default id (it lives in shard {@code partition}). */
    private WriteOp.Schedule schedule(int partition, long offset) {
        return new WriteOp.Schedule(
                TOPIC + "-" + partition + "-" + offset,
                store.now() + 60_000,
                new IntakeOrigin(TOPIC, partition, offset),
                ("v" + offset).getBytes(StandardCharsets.UTF_8),
                1_000 + offset);
    }
}

package io.delaybridge.bridge.store.redis;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.bridge.store.StoreDataLostException;
import io.delaybridge.bridge.store.StoreUnavailableException;
import io.delaybridge.bridge.store.WriteOp;
import io.delaybridge.bridge.store.WriteResult;
import io.delaybridge.schemas.IntakeOrigin;
import io.delaybridge.testkit.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the Redis store does when Redis loses what it held: a crash (its acknowledged writes survive), a script flush
 * (scripts reloaded, writes kept in order), an emptied server or shard (detected, never silently used). Each on its
 * own server.
 */
class RedisStoreDataLossIT {

    @TempDir
    Path dir;

    @Test
    void survivesARedisCrashWithItsAcknowledgedWrites() throws Exception {
        try (RedisServer redis = RedisServer.start(dir);
                RedisDelayStore store = RedisDelayStore.connect(RedisStoreFailureIT.options(redis, 2))) {
            long now = store.now();
            List<WriteOp> before = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                before.add(RedisStoreFailureIT.record(i % 2, i, now - 1, ("m" + i).getBytes()));
            }
            store.write(before).get(10, TimeUnit.SECONDS);
            String incarnation = store.incarnation();

            redis.kill();
            assertInstanceOf(
                    StoreUnavailableException.class,
                    RedisStoreFailureIT.writeFailure(
                            store, List.of(RedisStoreFailureIT.record(0, 1000, now, new byte[1]))));
            assertThrows(StoreUnavailableException.class, () -> store.stats(0));

            redis.restart(); // the script cache is empty now: the store must load its scripts again
            await().atMost(RedisStoreFailureIT.DEADLINE)
                    .pollInterval(Duration.ofMillis(50))
                    .ignoreExceptions()
                    .until(() -> store.write(List.of(RedisStoreFailureIT.record(0, 1000, now - 1, new byte[1])))
                            .get(5, TimeUnit.SECONDS)
                            .equals(List.of(WriteResult.STORED)));
            // the store's command connection reconnects on its own, maybe after the pipeline one that wrote
            await().atMost(RedisStoreFailureIT.DEADLINE)
                    .pollInterval(Duration.ofMillis(50))
                    .ignoreExceptions()
                    .until(() -> store.stats(0).pending() == 51);
            assertEquals(50, store.stats(1).pending());
            assertEquals(Optional.of(incarnation), store.currentIncarnation());
            long epoch = store.acquire(1);
            assertEquals(50, store.claim(1, epoch, 100, 60_000).messages().size());

            // the wake channels were subscribed again on reconnect
            List<Long> wakes = new java.util.concurrent.CopyOnWriteArrayList<>();
            store.onWake((shard, dueAt) -> wakes.add(dueAt));
            store.write(List.of(RedisStoreFailureIT.record(1, 5000, now - 10, new byte[1])))
                    .get(10, TimeUnit.SECONDS);
            await().atMost(RedisStoreFailureIT.DEADLINE).until(() -> wakes.contains(now - 10));
        }
    }

    @Test
    void reloadsItsScriptsAfterAScriptFlush() throws Exception {
        try (RedisServer redis = RedisServer.start(dir);
                RedisDelayStore store = RedisDelayStore.connect(RedisStoreFailureIT.options(redis, 1))) {
            long now = store.now();
            RedisStoreFailureIT.redisCli(redis, redis1 -> redis1.scriptFlush());
            List<WriteOp> ops = List.of(
                    RedisStoreFailureIT.record(0, 1, now - 1, new byte[1]),
                    RedisStoreFailureIT.record(0, 2, now - 1, new byte[1]),
                    new WriteOp.Cancel(RedisStoreFailureIT.TOPIC + "-0-2"),
                    RedisStoreFailureIT.record(0, 1, now - 1, new byte[1]));
            assertEquals(
                    List.of(WriteResult.STORED, WriteResult.STORED, WriteResult.CANCELLED, WriteResult.DUPLICATE),
                    store.write(ops).get(10, TimeUnit.SECONDS));

            RedisStoreFailureIT.redisCli(redis, redis1 -> redis1.scriptFlush());
            long epoch = store.acquire(0);
            RedisStoreFailureIT.redisCli(redis, redis1 -> redis1.scriptFlush());
            assertEquals(1, store.claim(0, epoch, 10, 60_000).messages().size());
        }
    }

    @Test
    void aWriteThatLostItsScriptsDoesNotOvertakeALaterWrite() throws Exception {
        // Two batches on their way (the intake keeps two polls in flight) when Redis forgets its scripts: the first
        // must not run its rest after the second, or an older version of an id would win over the newer one.
        try (RedisServer redis = RedisServer.start(dir);
                RedisDelayStore store = RedisDelayStore.connect(RedisStoreFailureIT.options(redis, 1))) {
            long now = store.now();
            String id = "order-7";
            RedisStoreFailureIT.redisCli(redis, redis1 -> redis1.scriptFlush());
            var older = store.write(List.of(new WriteOp.Schedule(
                    id, now + 60_000, new IntakeOrigin(RedisStoreFailureIT.TOPIC, 0, 1), "old".getBytes())));
            var newer = store.write(List.of(new WriteOp.Schedule(
                    id, now + 60_000, new IntakeOrigin(RedisStoreFailureIT.TOPIC, 0, 2), "new".getBytes())));
            WriteResult newerResult = newer.get(10, TimeUnit.SECONDS).get(0);
            assertTrue(newerResult == WriteResult.STORED || newerResult == WriteResult.REPLACED, "" + newerResult);
            try {
                older.get(10, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                assertInstanceOf(StoreUnavailableException.class, e.getCause());
                assertTrue(
                        e.getCause().getMessage().contains("again, in order"),
                        e.getCause().getMessage());
            }
            // whichever way the race went, the newer version is the one stored
            byte[] stored = redisValue(redis, store.keys(), store.router().member(id));
            assertEquals("new", new String(StoredValue.envelope(stored), StandardCharsets.UTF_8));
            assertEquals(1, store.stats(0).pending());
        }
    }

    private static byte[] redisValue(RedisServer redis, RedisKeys keys, byte[] member) {
        RedisClient client = RedisClient.create(redis.uri());
        try (StatefulRedisConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE)) {
            return connection.sync().hget(keys.shard(0).msg(), member);
        } finally {
            client.shutdown();
        }
    }

    @Test
    void aRedisThatLostItsDataIsDetectedNotSilentlyUsed() throws Exception {
        try (RedisServer redis = RedisServer.start(dir)) {
            String oldIncarnation;
            try (RedisDelayStore store = RedisDelayStore.connect(RedisStoreFailureIT.options(redis, 2))) {
                oldIncarnation = store.incarnation();
                store.write(List.of(RedisStoreFailureIT.record(0, 1, store.now() + 60_000, new byte[1])))
                        .get(10, TimeUnit.SECONDS);

                RedisStoreFailureIT.redisCli(redis, redis1 -> redis1.flushall());
                Throwable failure = RedisStoreFailureIT.writeFailure(
                        store, List.of(RedisStoreFailureIT.record(1, 1, store.now(), new byte[1])));
                assertInstanceOf(StoreDataLostException.class, failure);
                assertTrue(failure.getMessage().contains("shard 1"), failure.getMessage());
                assertInstanceOf(
                        StoreDataLostException.class,
                        RedisStoreFailureIT.writeFailure(
                                store, List.of(new WriteOp.Cancel(RedisStoreFailureIT.TOPIC + "-0-1"))));
                assertEquals(Optional.empty(), store.currentIncarnation());
            }
            // a new start over the empty Redis is a new store: the intake must compare the incarnation it recorded
            try (RedisDelayStore fresh = RedisDelayStore.connect(RedisStoreFailureIT.options(redis, 2))) {
                assertNotEquals(oldIncarnation, fresh.incarnation());
            }
        }
    }

    @Test
    void aShardThatLostItsDataStopsTheStart() {
        try (RedisServer redis = RedisServer.start(dir)) {
            RedisStoreOptions options = RedisStoreFailureIT.options(redis, 3);
            String keyOfShard2;
            try (RedisDelayStore store = RedisDelayStore.connect(options)) {
                keyOfShard2 = new String(store.keys().shard(2).incarnation());
            }
            RedisStoreFailureIT.redisCli(
                    redis, redis1 -> redis1.del(keyOfShard2)); // as if one Cluster node came back empty
            StoreDataLostException e =
                    assertThrows(StoreDataLostException.class, () -> RedisDelayStore.connect(options));
            assertTrue(e.getMessage().contains("Shard 2"), e.getMessage());
        }
    }
}

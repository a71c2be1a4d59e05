package io.delaybridge.bridge.store.redis;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.delaybridge.bridge.store.ClaimBatch;
import io.delaybridge.bridge.store.ClaimedMessage;
import io.delaybridge.bridge.store.MessageRef;
import io.delaybridge.bridge.store.StoreConfigurationException;
import io.delaybridge.bridge.store.StoreDataLostException;
import io.delaybridge.bridge.store.StoreUnavailableException;
import io.delaybridge.bridge.store.WriteOp;
import io.delaybridge.bridge.store.WriteResult;
import io.delaybridge.schemas.IntakeOrigin;
import io.delaybridge.testkit.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/** What the Redis store does when Redis is misconfigured, full, gone, restarted or emptied: each on its own server. */
class RedisStoreFailureIT {

    static final String TOPIC = "delay-intake";
    static final Duration DEADLINE = Duration.ofSeconds(20);

    @TempDir
    Path dir;

    static RedisStoreOptions options(RedisServer redis, int shards) {
        return RedisStoreOptions.of(redis.uri(), TOPIC, shards).withCommandTimeout(Duration.ofSeconds(2));
    }

    static WriteOp.Schedule record(int partition, long offset, long dueAt, byte[] envelope) {
        return new WriteOp.Schedule(
                TOPIC + "-" + partition + "-" + offset, dueAt, new IntakeOrigin(TOPIC, partition, offset), envelope);
    }

    private static Throwable writeFailure(RedisDelayStore store, List<WriteOp> ops) {
        ExecutionException e =
                assertThrows(ExecutionException.class, () -> store.write(ops).get(30, TimeUnit.SECONDS));
        return e.getCause();
    }

    /** Runs Redis commands outside the store, as an operator or another client would. */
    private static void redisCli(RedisServer redis, Consumer<RedisCommands<String, String>> commands) {
        RedisClient client = RedisClient.create(redis.uri());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            commands.accept(connection.sync());
        } finally {
            client.shutdown();
        }
    }

    @Test
    void anUnreachableRedisIsUnavailableAndTheMessageHidesThePassword() throws IOException {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        String uri = "redis://:topsecret@127.0.0.1:" + port;
        StoreUnavailableException e = assertThrows(
                StoreUnavailableException.class,
                () -> RedisDelayStore.connect(
                        RedisStoreOptions.of(uri, TOPIC, 1).withCommandTimeout(Duration.ofSeconds(2))));
        assertTrue(e.getMessage().contains("redis://***@127.0.0.1:" + port), e.getMessage());
        for (Throwable t = e; t != null; t = t.getCause()) {
            assertFalse(String.valueOf(t.getMessage()).contains("topsecret"), t.toString());
        }
    }

    @Test
    void aWrongPasswordIsAConfigurationError() {
        try (RedisServer redis = RedisServer.start(dir, 0, List.of("--requirepass", "right"))) {
            String uri = "redis://:wrong@127.0.0.1:" + redis.port();
            // Once in CI the first handshake with a fresh Redis ended in "Connection closed prematurely" (an
            // unreachable Redis, StoreUnavailableException) instead of WRONGPASS: that one is tried again
            RuntimeException failure = null;
            for (int attempt = 0; attempt < 5; attempt++) {
                failure = assertThrows(
                        RuntimeException.class, () -> RedisDelayStore.connect(RedisStoreOptions.of(uri, TOPIC, 1)));
                if (!(failure instanceof StoreUnavailableException)) {
                    break;
                }
            }
            StoreConfigurationException e = assertInstanceOf(StoreConfigurationException.class, failure);
            assertTrue(e.getMessage().contains("redis.uri (REDIS_URI)"), e.getMessage());
            assertFalse(e.getMessage().contains("wrong@"), e.getMessage());

            String good = "redis://:right@127.0.0.1:" + redis.port();
            try (RedisDelayStore store = RedisDelayStore.connect(RedisStoreOptions.of(good, TOPIC, 1))) {
                assertEquals(1, store.shardCount());
            }
        }
    }

    @Test
    void acksOnARedisWithoutZmscore() throws Exception {
        // Redis before 6.2 has no ZMSCORE: when an ack's ZREM finds fewer members in flight than it was given, ack.lua
        // then asks which of them are pending one ZSCORE at a time
        try (RedisServer redis = RedisServer.start(dir, 0, List.of("--rename-command", "ZMSCORE", "\"\""));
                RedisDelayStore store = RedisDelayStore.connect(options(redis, 1))) {
            try (RedisClient client = RedisClient.create(redis.uri());
                    StatefulRedisConnection<String, String> connection = client.connect()) {
                assertThrows(RuntimeException.class, () -> connection.sync().zmscore("k", "m"));
            }
            long now = store.now();
            List<WriteOp> ops = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                ops.add(record(0, i, now - 1, ("m" + i).getBytes()));
            }
            store.write(ops).get(10, TimeUnit.SECONDS);
            long epoch = store.acquire(0);
            ClaimBatch batch = store.claim(0, epoch, 5, 60_000);
            assertEquals(5, batch.messages().size());
            List<MessageRef> refs =
                    batch.messages().stream().map(ClaimedMessage::ref).toList();

            assertEquals(3, store.ack(0, epoch, refs.subList(0, 3)));
            assertEquals(0, store.ack(0, epoch, refs.subList(0, 3)), "no longer in flight: nothing to delete");
            assertEquals(2, store.stats(0).inFlight());
            // the fourth is scheduled again while in flight (another intake record with its id): pending again
            String replaced = batch.messages().get(3).ref().id();
            store.write(List.of(new WriteOp.Schedule(
                            replaced, now - 1, new IntakeOrigin(TOPIC, 0, 99), "again".getBytes())))
                    .get(10, TimeUnit.SECONDS);
            assertEquals(1, store.ack(0, epoch, refs), "only the fifth was still in flight");
            assertEquals(0, store.stats(0).inFlight());
            assertEquals(1, store.stats(0).pending(), "the new version of the fourth stays");
            ClaimBatch again = store.claim(0, epoch, 5, 60_000);
            assertEquals(
                    List.of(replaced),
                    again.messages().stream().map(m -> m.ref().id()).toList());
            assertEquals(
                    1,
                    store.ack(
                            0,
                            epoch,
                            again.messages().stream().map(ClaimedMessage::ref).toList()));
            assertEquals(0, store.stats(0).pending());
        }
    }

    @Test
    void aWriteFailsWhenTooFewReplicasAcknowledge() {
        try (RedisServer redis = RedisServer.start(dir);
                RedisDelayStore store =
                        RedisDelayStore.connect(options(redis, 1).withWait(1, Duration.ofMillis(100)))) {
            Throwable failure = writeFailure(store, List.of(record(0, 1, store.now(), new byte[10])));
            assertInstanceOf(StoreUnavailableException.class, failure);
            assertTrue(failure.getMessage().contains("only 0 of 1 replicas"), failure.getMessage());
            assertEquals(1, store.stats(0).pending(), "the primary holds it: a retry is a duplicate");
        }
    }

    @Test
    void aThawWaitsForReplicasAsTheIntakesWritesDo() {
        try (RedisServer redis = RedisServer.start(dir);
                RedisDelayStore store =
                        RedisDelayStore.connect(options(redis, 1).withWait(1, Duration.ofMillis(100)))) {
            long epoch = store.acquire(0);
            CompletionException e = assertThrows(
                    CompletionException.class,
                    () -> store.far()
                            .thaw(0, epoch, List.of(record(0, 1, store.now(), new byte[10])))
                            .join());
            assertInstanceOf(StoreUnavailableException.class, e.getCause());
            assertTrue(
                    e.getCause().getMessage().contains("only 0 of 1 replicas"),
                    e.getCause().getMessage());
            assertEquals(1, store.stats(0).pending(), "the primary holds it: the thaw of the hour runs again");
        }
    }

    @Test
    void survivesARedisCrashWithItsAcknowledgedWrites() throws Exception {
        try (RedisServer redis = RedisServer.start(dir);
                RedisDelayStore store = RedisDelayStore.connect(options(redis, 2))) {
            long now = store.now();
            List<WriteOp> before = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                before.add(record(i % 2, i, now - 1, ("m" + i).getBytes()));
            }
            store.write(before).get(10, TimeUnit.SECONDS);
            String incarnation = store.incarnation();

            redis.kill();
            assertInstanceOf(
                    StoreUnavailableException.class, writeFailure(store, List.of(record(0, 1000, now, new byte[1]))));
            assertThrows(StoreUnavailableException.class, () -> store.stats(0));

            redis.restart(); // the script cache is empty now: the store must load its scripts again
            await().atMost(DEADLINE)
                    .pollInterval(Duration.ofMillis(50))
                    .ignoreExceptions()
                    .until(() -> store.write(List.of(record(0, 1000, now - 1, new byte[1])))
                            .get(5, TimeUnit.SECONDS)
                            .equals(List.of(WriteResult.STORED)));
            // the store's command connection reconnects on its own, maybe after the pipeline one that wrote
            await().atMost(DEADLINE)
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
            store.write(List.of(record(1, 5000, now - 10, new byte[1]))).get(10, TimeUnit.SECONDS);
            await().atMost(DEADLINE).until(() -> wakes.contains(now - 10));
        }
    }

    @Test
    void reloadsItsScriptsAfterAScriptFlush() throws Exception {
        try (RedisServer redis = RedisServer.start(dir);
                RedisDelayStore store = RedisDelayStore.connect(options(redis, 1))) {
            long now = store.now();
            redisCli(redis, redis1 -> redis1.scriptFlush());
            List<WriteOp> ops = List.of(
                    record(0, 1, now - 1, new byte[1]),
                    record(0, 2, now - 1, new byte[1]),
                    new WriteOp.Cancel(TOPIC + "-0-2"),
                    record(0, 1, now - 1, new byte[1]));
            assertEquals(
                    List.of(WriteResult.STORED, WriteResult.STORED, WriteResult.CANCELLED, WriteResult.DUPLICATE),
                    store.write(ops).get(10, TimeUnit.SECONDS));

            redisCli(redis, redis1 -> redis1.scriptFlush());
            long epoch = store.acquire(0);
            redisCli(redis, redis1 -> redis1.scriptFlush());
            assertEquals(1, store.claim(0, epoch, 10, 60_000).messages().size());
        }
    }

    @Test
    void aWriteThatLostItsScriptsDoesNotOvertakeALaterWrite() throws Exception {
        // Two batches on their way (the intake keeps two polls in flight) when Redis forgets its scripts: the first
        // must not run its rest after the second, or an older version of an id would win over the newer one.
        try (RedisServer redis = RedisServer.start(dir);
                RedisDelayStore store = RedisDelayStore.connect(options(redis, 1))) {
            long now = store.now();
            String id = "order-7";
            redisCli(redis, redis1 -> redis1.scriptFlush());
            var older = store.write(
                    List.of(new WriteOp.Schedule(id, now + 60_000, new IntakeOrigin(TOPIC, 0, 1), "old".getBytes())));
            var newer = store.write(
                    List.of(new WriteOp.Schedule(id, now + 60_000, new IntakeOrigin(TOPIC, 0, 2), "new".getBytes())));
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
            try (RedisDelayStore store = RedisDelayStore.connect(options(redis, 2))) {
                oldIncarnation = store.incarnation();
                store.write(List.of(record(0, 1, store.now() + 60_000, new byte[1])))
                        .get(10, TimeUnit.SECONDS);

                redisCli(redis, redis1 -> redis1.flushall());
                Throwable failure = writeFailure(store, List.of(record(1, 1, store.now(), new byte[1])));
                assertInstanceOf(StoreDataLostException.class, failure);
                assertTrue(failure.getMessage().contains("shard 1"), failure.getMessage());
                assertInstanceOf(
                        StoreDataLostException.class, writeFailure(store, List.of(new WriteOp.Cancel(TOPIC + "-0-1"))));
                assertEquals(Optional.empty(), store.currentIncarnation());
            }
            // a new start over the empty Redis is a new store: the intake must compare the incarnation it recorded
            try (RedisDelayStore fresh = RedisDelayStore.connect(options(redis, 2))) {
                assertNotEquals(oldIncarnation, fresh.incarnation());
            }
        }
    }

    @Test
    void aShardThatLostItsDataStopsTheStart() {
        try (RedisServer redis = RedisServer.start(dir)) {
            RedisStoreOptions options = options(redis, 3);
            String keyOfShard2;
            try (RedisDelayStore store = RedisDelayStore.connect(options)) {
                keyOfShard2 = new String(store.keys().shard(2).incarnation());
            }
            redisCli(redis, redis1 -> redis1.del(keyOfShard2)); // as if one Cluster node came back empty
            StoreDataLostException e =
                    assertThrows(StoreDataLostException.class, () -> RedisDelayStore.connect(options));
            assertTrue(e.getMessage().contains("Shard 2"), e.getMessage());
        }
    }

    @Test
    void theShardCountIsFixedWhenTheStoreIsCreated() {
        try (RedisServer redis = RedisServer.start(dir)) {
            try (RedisDelayStore store = RedisDelayStore.connect(options(redis, 4))) {
                assertEquals(4, store.shardCount());
            }
            List<ILoggingEvent> warnings = captureWarnings(() -> {
                try (RedisDelayStore store = RedisDelayStore.connect(options(redis, 6))) {
                    assertEquals(4, store.shardCount());
                    assertEquals(4, store.router().shardCount());
                }
            });
            assertTrue(
                    warnings.stream().anyMatch(w -> w.getFormattedMessage().contains("created with 4 shards")),
                    warnings.toString());
        }
    }

    @Test
    void twoStoresWithDifferentPrefixesAreIndependent() throws Exception {
        try (RedisServer redis = RedisServer.start(dir);
                RedisDelayStore a = RedisDelayStore.connect(options(redis, 2).withKeyPrefix("a"));
                RedisDelayStore b = RedisDelayStore.connect(options(redis, 3).withKeyPrefix("b"))) {
            a.write(List.of(record(0, 1, a.now(), new byte[1]))).get(10, TimeUnit.SECONDS);
            assertEquals(1, a.stats(0).pending());
            assertEquals(0, b.stats(0).pending());
            assertNotEquals(a.incarnation(), b.incarnation());
            assertEquals(3, b.shardCount());
        }
    }

    @Test
    void warnsWhenRedisMayLoseAcknowledgedWrites() {
        try (RedisServer redis = RedisServer.start(dir, 0, List.of("--appendfsync", "everysec"))) {
            List<ILoggingEvent> warnings = captureWarnings(
                    () -> RedisDelayStore.connect(options(redis, 1)).close());
            assertTrue(
                    warnings.stream()
                            .anyMatch(w -> w.getFormattedMessage().contains("appendfsync everysec")
                                    && w.getFormattedMessage().contains("second")),
                    warnings.toString());
        }
        try (RedisServer redis = RedisServer.start(dir.resolve("no-aof"), 0, List.of("--appendonly", "no"))) {
            List<ILoggingEvent> warnings = captureWarnings(
                    () -> RedisDelayStore.connect(options(redis, 1)).close());
            assertTrue(
                    warnings.stream().anyMatch(w -> w.getFormattedMessage().contains("appendonly no")),
                    warnings.toString());
        }
        try (RedisServer redis = RedisServer.start(dir.resolve("durable"))) {
            List<ILoggingEvent> warnings = captureWarnings(
                    () -> RedisDelayStore.connect(options(redis, 1)).close());
            assertTrue(warnings.isEmpty(), "a durable Redis gets no warning: " + warnings);
        }
    }

    private static List<ILoggingEvent> captureWarnings(Runnable action) {
        Logger logger = (Logger) LoggerFactory.getLogger(RedisDelayStore.class.getPackageName());
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.start();
        logger.addAppender(appender);
        try {
            action.run();
        } finally {
            logger.detachAppender(appender);
        }
        return appender.list.stream()
                .filter(e -> e.getLevel().isGreaterOrEqual(Level.WARN))
                .toList();
    }
}

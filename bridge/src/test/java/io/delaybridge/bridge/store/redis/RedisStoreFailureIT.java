package io.delaybridge.bridge.store.redis;

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
import io.delaybridge.bridge.SharedJvm;
import io.delaybridge.bridge.store.ClaimBatch;
import io.delaybridge.bridge.store.ClaimedMessage;
import io.delaybridge.bridge.store.MessageRef;
import io.delaybridge.bridge.store.StoreConfigurationException;
import io.delaybridge.bridge.store.StoreUnavailableException;
import io.delaybridge.bridge.store.WriteOp;
import io.delaybridge.schemas.IntakeOrigin;
import io.delaybridge.testkit.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.slf4j.LoggerFactory;

/** What the Redis store does when Redis is misconfigured, unreachable, short of replicas or shared: each on its own server. */
@ResourceLock(SharedJvm.LOGGING_AND_THREADS) // no bridge starts in this JVM while it runs
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

    static Throwable writeFailure(RedisDelayStore store, List<WriteOp> ops) {
        ExecutionException e =
                assertThrows(ExecutionException.class, () -> store.write(ops).get(30, TimeUnit.SECONDS));
        return e.getCause();
    }

    /** Runs Redis commands outside the store, as an operator or another client would. */
    static void redisCli(RedisServer redis, Consumer<RedisCommands<String, String>> commands) {
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

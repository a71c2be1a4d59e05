package io.delaybridge.bridge.store.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.delaybridge.bridge.SharedJvm;
import io.delaybridge.testkit.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.StatefulRedisConnectionImpl;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import java.lang.reflect.Field;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.slf4j.LoggerFactory;

/**
 * The connections a store opens at start-up, counted by a real server of its own: on one server the store holds a
 * command, a pipeline and a pub/sub connection, and opens no other, whether the auto mode asked the server what it is
 * (its asking connection becomes the command connection) or the mode was set; their handshakes ask nothing useless,
 * and they do not build Lettuce's synchronous API.
 */
@ResourceLock(SharedJvm.LOGGING_AND_THREADS) // no bridge starts in this JVM while it runs
class RedisStartupConnectionsIT {

    private static final String TOPIC = "delay-intake";
    private static final int SHARDS = 4;

    @TempDir
    Path dir;

    @Test
    void theAutoModeKeepsTheConnectionThatAskedTheServer() {
        try (RedisServer redis = RedisServer.start(dir)) {
            assertEquals(3, connectionsOpenedBy(redis, RedisMode.AUTO));
        }
    }

    @Test
    void aSetModeOpensAsManyAsTheAutoMode() {
        try (RedisServer redis = RedisServer.start(dir)) {
            assertEquals(3, connectionsOpenedBy(redis, RedisMode.STANDALONE));
        }
    }

    /**
     * The connections' handshakes send nothing the server refuses, but {@code CLIENT SETINFO} before Redis 7.2 (Lettuce
     * names itself, two errors a connection): no {@code CLIENT MAINT_NOTIFICATIONS}, whose pushes need RESP3.
     */
    @Test
    void theHandshakesAskNothingTheServerRefusesButSetinfo() {
        try (RedisServer redis = RedisServer.start(dir)) {
            String[] version = redis.version().split("\\.");
            boolean setinfo = Integer.parseInt(version[0]) > 7
                    || (Integer.parseInt(version[0]) == 7 && Integer.parseInt(version[1]) >= 2);
            long before = errorReplies(redis);
            RedisDelayStore.connect(RedisStoreOptions.of(redis.uri(), TOPIC, SHARDS))
                    .close();
            assertEquals(setinfo ? 0 : 3 * 2, errorReplies(redis) - before, redis.call("INFO", "errorstats") + "");
        }
    }

    /**
     * The lean client's connections leave Lettuce's synchronous API (a generated proxy class) unbuilt until {@code
     * sync()} is called, which still works.
     */
    @Test
    void theSynchronousApiIsBuiltOnlyWhenAskedFor() throws ReflectiveOperationException {
        try (RedisServer redis = RedisServer.start(dir)) {
            ClientResources resources = DefaultClientResources.create();
            RedisClient client = new LeanRedisClient(resources, RedisURI.create(redis.uri()));
            try (StatefulRedisConnection<String, String> connection = client.connect();
                    StatefulRedisPubSubConnection<String, String> pubSub = client.connectPubSub()) {
                Field sync = StatefulRedisConnectionImpl.class.getDeclaredField("sync");
                sync.setAccessible(true);
                assertNull(sync.get(connection), "the command connection's synchronous API is built at connect");
                assertNull(sync.get(pubSub), "the pub/sub connection's synchronous API is built at connect");
                assertEquals("PONG", connection.sync().ping());
                assertEquals("PONG", pubSub.sync().ping());
            } finally {
                client.shutdown();
                resources.shutdown();
            }
        }
    }

    /** A start and a stop on a durable server log no warning, Lettuce's included (no connection closed twice). */
    @Test
    void aStartAndAStopLogNoWarning() {
        try (RedisServer redis = RedisServer.start(dir)) {
            Logger root = (Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME);
            ListAppender<ILoggingEvent> appender = new ListAppender<>();
            appender.start();
            root.addAppender(appender);
            try {
                RedisDelayStore.connect(RedisStoreOptions.of(redis.uri(), TOPIC, SHARDS))
                        .close();
            } finally {
                root.detachAppender(appender);
            }
            List<String> warnings = appender.list.stream()
                    .filter(e -> e.getLevel().isGreaterOrEqual(Level.WARN))
                    .map(e -> e.getLoggerName() + ": " + e.getFormattedMessage())
                    .toList();
            assertTrue(warnings.isEmpty(), warnings.toString());
        }
    }

    /**
     * Connects a store in {@code mode}, checks that it holds its three connections (one of them subscribed to every
     * shard's wake channel), and returns how many connections the server received while it connected.
     */
    private static long connectionsOpenedBy(RedisServer redis, RedisMode mode) {
        long before = connectionsReceived(redis);
        try (RedisDelayStore store = RedisDelayStore.connect(RedisStoreOptions.of(redis.uri(), TOPIC, SHARDS)
                .withMode(mode)
                .withCommandTimeout(Duration.ofSeconds(2)))) {
            assertEquals(RedisMode.STANDALONE, store.mode());
            long opened = connectionsReceived(redis) - before - 1; // the second count's own connection
            // CLIENT LIST names every open connection, the listing one (cmd=client) included
            List<String> clients = Arrays.stream(((String) redis.call("CLIENT", "LIST")).split("\n"))
                    .filter(line -> !line.isBlank() && !line.contains("cmd=client"))
                    .toList();
            assertEquals(3, clients.size(), String.join("\n", clients));
            assertTrue(
                    clients.stream().anyMatch(line -> line.contains(" sub=" + SHARDS + " ")),
                    "one connection subscribed to the " + SHARDS + " wake channels: " + String.join("\n", clients));
            return opened;
        }
    }

    /** Every error reply the server has sent, by {@code INFO errorstats}. */
    private static long errorReplies(RedisServer redis) {
        return RedisCalls.parseInfo((String) redis.call("INFO", "errorstats")).entrySet().stream()
                .filter(e -> e.getKey().startsWith("errorstat_"))
                .mapToLong(e -> Long.parseLong(e.getValue().replace("count=", "")))
                .sum();
    }

    private static long connectionsReceived(RedisServer redis) {
        String stats = (String) redis.call("INFO", "stats");
        return Long.parseLong(RedisCalls.parseInfo(stats).get("total_connections_received"));
    }
}

package io.delaybridge.bridge.store.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.delaybridge.testkit.RedisServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The connections a store opens at start-up, counted by a real server of its own: on one server the store holds a
 * command, a pipeline and a pub/sub connection, and opens no other, whether the auto mode asked the server what it is
 * (its asking connection becomes the command connection) or the mode was set.
 */
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

    private static long connectionsReceived(RedisServer redis) {
        String stats = (String) redis.call("INFO", "stats");
        return Long.parseLong(RedisCalls.parseInfo(stats).get("total_connections_received"));
    }
}

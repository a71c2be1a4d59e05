package io.delaybridge.bridge.store.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.bridge.store.StoreConfigurationException;
import io.delaybridge.testkit.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The meta hash's layout version: recorded for new and older stores, a newer one refused. */
class StoreLayoutVersionIT {

    private static final String TOPIC = "delay-intake";
    private static final String META = new String(
            RedisKeys.metaKey(RedisStoreOptions.of("redis://unused", TOPIC, 2).keyPrefix(), TOPIC),
            java.nio.charset.StandardCharsets.UTF_8);

    @TempDir
    Path dir;

    private static RedisStoreOptions options(RedisServer redis) {
        return RedisStoreOptions.of(redis.uri(), TOPIC, 2).withCommandTimeout(Duration.ofSeconds(2));
    }

    @Test
    void anOlderStoreIsRaisedToThisLayoutAndANewerLayoutIsRefused() {
        try (RedisServer redis = RedisServer.start(dir, 0, List.of())) {
            RedisClient client = RedisClient.create(redis.uri());
            try (StatefulRedisConnection<String, String> connection = client.connect()) {
                RedisCommands<String, String> cli = connection.sync();
                RedisDelayStore.connect(options(redis)).close();
                assertEquals("3", cli.hget(META, "layout"), "a new store records its layout");

                cli.hdel(META, "layout"); // as a store written before layouts had versions (layout 1)
                RedisDelayStore.connect(options(redis)).close();
                assertEquals("3", cli.hget(META, "layout"), "an older store is raised: layout 3 reads layout 1");

                cli.hset(META, "layout", "2"); // written by the bridge before lanes
                RedisDelayStore.connect(options(redis)).close();
                assertEquals("3", cli.hget(META, "layout"), "so a bridge before lanes refuses it from now on");

                cli.hset(META, "layout", "4"); // written by a newer bridge
                StoreConfigurationException e =
                        assertThrows(StoreConfigurationException.class, () -> RedisDelayStore.connect(options(redis)));
                assertTrue(
                        e.getMessage().contains("has layout 4")
                                && e.getMessage().contains(META)
                                && e.getMessage().contains("up to 3"),
                        e.getMessage());
                assertEquals("4", cli.hget(META, "layout"), "the refusal changes nothing");
            } finally {
                client.shutdown();
            }
        }
    }
}

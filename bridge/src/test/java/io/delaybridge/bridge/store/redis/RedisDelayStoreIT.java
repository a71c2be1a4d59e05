package io.delaybridge.bridge.store.redis;

import io.delaybridge.bridge.store.DelayStore;
import io.delaybridge.bridge.store.DelayStoreContractIT;
import io.delaybridge.testkit.RedisServer;
import java.nio.file.Path;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/** The store contract on a real redis-server; each test gets its own key prefix, so its shards start empty. */
class RedisDelayStoreIT extends DelayStoreContractIT {

    @TempDir
    static Path redisDir;

    private static RedisServer redis;

    @BeforeAll
    static void startRedis() {
        redis = RedisServer.start(redisDir);
    }

    @AfterAll
    static void stopRedis() {
        if (redis != null) {
            redis.close();
        }
    }

    @Override
    protected DelayStore newStore() {
        String prefix = "contract-" + UUID.randomUUID().toString().substring(0, 8);
        return RedisDelayStore.connect(RedisStoreOptions.of(redis.uri(), TOPIC, SHARDS).withKeyPrefix(prefix));
    }
}

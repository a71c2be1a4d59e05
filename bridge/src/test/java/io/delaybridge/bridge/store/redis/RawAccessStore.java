package io.delaybridge.bridge.store.redis;

import io.delaybridge.testkit.TestServers;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;

/**
 * A store on the run's Redis under a key prefix of its own (so its shards start empty), for intake topic
 * {@value #TOPIC} with {@value #SHARDS} shards, and a raw connection beside it to look at or change its keys as a test
 * needs. One per test: made in {@code @BeforeEach}, closed in {@code @AfterEach}.
 */
final class RawAccessStore implements AutoCloseable {

    static final String TOPIC = "delay-intake";
    static final int SHARDS = 4;

    final RedisDelayStore store;
    final StatefulRedisConnection<byte[], byte[]> raw;
    private final RedisClient client;

    RawAccessStore(TestServers servers, String prefix) {
        store = RedisDelayStore.connect(
                RedisStoreOptions.of(servers.redisUri(), TOPIC, SHARDS).withKeyPrefix(servers.unique(prefix)));
        client = RedisClient.create(servers.redisUri());
        raw = client.connect(ByteArrayCodec.INSTANCE);
    }

    @Override
    public void close() {
        raw.close();
        client.shutdown();
        store.close();
    }
}

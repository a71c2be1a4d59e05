package io.delaybridge.bridge.e2e;

import java.util.List;

/** What the bridges of a test (4 shards, the test's key prefix) keep in Redis, counted in Redis itself. */
final class RedisCounts {

    private RedisCounts() {}

    /** Members in flight in the given shards, read from Redis. */
    static long inFlight(String redisUri, TestNames names, List<Integer> shards) {
        return countInRedis(redisUri, names, shards, (redis, keys) -> redis.zcard(keys.inflight()));
    }

    /** Messages stored in the 4 shards (due or in flight: each has its payload), read from Redis. */
    static long stored(String redisUri, TestNames names) {
        return countInRedis(redisUri, names, List.of(0, 1, 2, 3), (redis, keys) -> redis.hlen(keys.msg()));
    }

    private static long countInRedis(
            String redisUri,
            TestNames names,
            List<Integer> shards,
            java.util.function.ToLongBiFunction<
                            io.lettuce.core.api.sync.RedisCommands<byte[], byte[]>,
                            io.delaybridge.bridge.store.redis.RedisKeys.ShardKeys>
                    count) {
        io.lettuce.core.RedisClient client = io.lettuce.core.RedisClient.create(redisUri);
        try (io.lettuce.core.api.StatefulRedisConnection<byte[], byte[]> redis =
                client.connect(io.lettuce.core.codec.ByteArrayCodec.INSTANCE)) {
            io.delaybridge.bridge.store.redis.RedisKeys keys =
                    new io.delaybridge.bridge.store.redis.RedisKeys(names.keyPrefix(), names.intake(), 4);
            long total = 0;
            for (int shard : shards) {
                total += count.applyAsLong(redis.sync(), keys.shard(shard));
            }
            return total;
        } finally {
            client.shutdown();
        }
    }
}

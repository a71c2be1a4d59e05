package io.delaybridge.bridge.store.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.delaybridge.bridge.store.TransactionWriters;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.RedisCluster;
import io.delaybridge.testkit.TestServers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** Who may have written a shard's exactly-once transactions, on a real Redis and a real Redis Cluster (writers.lua). */
@ExtendWith(RealServersExtension.class)
class TransactionWritersIT {

    private static final String TOPIC = RawAccessStore.TOPIC;

    private static <T> T get(CompletableFuture<T> call) throws Exception {
        return call.get(10, TimeUnit.SECONDS);
    }

    private static Set<String> register(TransactionWriters writers, int shard, String instance) throws Exception {
        List<String> others = get(writers.register(shard, instance));
        Set<String> set = new HashSet<>(others);
        assertEquals(others.size(), set.size(), "each writer once: " + others);
        return set;
    }

    @Test
    void registerAnswersTheOtherWritersOfItsShardOnly(TestServers servers) throws Exception {
        try (RawAccessStore redis = new RawAccessStore(servers, "writers")) {
            TransactionWriters writers = redis.store.transactionWriters();
            assertEquals(Set.of(), register(writers, 0, "a"), "the first writer finds none");
            assertEquals(Set.of("a"), register(writers, 0, "b"), "not itself");
            assertEquals(Set.of("a", "b"), register(writers, 0, "c"));
            assertEquals(Set.of(), register(writers, 1, "a"), "shards are apart");
            assertEquals(Set.of("a"), register(writers, 1, "d"));
            assertEquals(Set.of("a", "c"), register(writers, 0, "b"), "shard 0 holds a, b, c only");
        }
    }

    @Test
    void forgetRemovesOnlyTheNamedWritersAndOneRegisteringAgainIsKept(TestServers servers) throws Exception {
        try (RawAccessStore redis = new RawAccessStore(servers, "writers")) {
            TransactionWriters writers = redis.store.transactionWriters();
            for (String instance : List.of("a", "b", "c")) {
                register(writers, 0, instance);
            }
            register(writers, 1, "b");

            get(writers.forget(0, List.of("a", "b", "unknown")));
            assertEquals(Set.of("c"), register(writers, 0, "d"), "a and b forgotten, c kept");
            assertEquals(Set.of("b"), register(writers, 1, "e"), "the other shard keeps b");

            assertEquals(Set.of("c", "d"), register(writers, 0, "a"), "a writes again");
            assertEquals(Set.of("a", "d"), register(writers, 0, "c"), "a registered after the forget is kept");
        }
    }

    @Test
    void callsRunAgainChangeNothing(TestServers servers) throws Exception {
        try (RawAccessStore redis = new RawAccessStore(servers, "writers")) {
            TransactionWriters writers = redis.store.transactionWriters();
            register(writers, 0, "a");
            assertEquals(Set.of("a"), register(writers, 0, "b"));
            assertEquals(Set.of("a"), register(writers, 0, "b"), "registering twice");
            assertEquals(Set.of("b"), register(writers, 0, "a"));

            get(writers.forget(0, List.of("a")));
            get(writers.forget(0, List.of("a")));
            get(writers.forget(0, List.of()));
            assertEquals(Set.of(), register(writers, 0, "b"), "forgetting twice, or none");

            get(writers.forget(0, List.of("b")));
            assertEquals(0L, redis.raw.sync().exists(redis.store.keys().writers(0)), "no writers: no key");
            assertThrows(IllegalArgumentException.class, () -> writers.register(0, ""));
            assertThrows(
                    IllegalArgumentException.class,
                    () -> writers.register(RawAccessStore.SHARDS, "a"),
                    "no such shard");
        }
    }

    /** Each shard's set lives in its shard's slot, on whichever master owns it: no call is cross-slot. */
    @Test
    void onAClusterEachShardsWritersLiveWithTheShard(@TempDir Path dir) throws Exception {
        int shards = 16;
        try (RedisCluster cluster = RedisCluster.start(dir, 3, 0);
                RedisDelayStore store = RedisDelayStore.connect(
                        RedisStoreOptions.of(cluster.uri(), TOPIC, shards).withKeyPrefix("cw"))) {
            TransactionWriters writers = store.transactionWriters();
            Set<String> nodes = new HashSet<>();
            for (int shard = 0; shard < shards; shard++) {
                register(writers, shard, "a");
                assertEquals(Set.of("a"), register(writers, shard, "b" + shard), "shard " + shard);
                nodes.add(store.nodeOf(shard));
                String key = new String(store.keys().writers(shard), StandardCharsets.UTF_8);
                assertEquals(
                        cluster.masterOfKey(new String(store.keys().shard(shard).due(), StandardCharsets.UTF_8)),
                        cluster.masterOfKey(key),
                        "shard " + shard + "'s writers sit with its other keys");
            }
            assertNotEquals(1, nodes.size(), "the shards spread over the masters: " + nodes);
            get(writers.forget(5, List.of("a")));
            assertEquals(Set.of(), register(writers, 5, "b5"));
            assertEquals(Set.of("a"), register(writers, 6, "b6"));
        }
    }
}

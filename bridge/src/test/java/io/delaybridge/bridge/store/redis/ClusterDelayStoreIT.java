package io.delaybridge.bridge.store.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.delaybridge.bridge.store.DelayStore;
import io.delaybridge.bridge.store.DelayStoreContractIT;
import io.delaybridge.bridge.store.LanedEnvelopes;
import io.delaybridge.testkit.RedisCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The store contract on a real Redis Cluster of three masters (one per test class), found from the seeds of its URI:
 * every script and read runs on the master that owns the shard's hash tag; a cross-slot command anywhere fails here.
 */
class ClusterDelayStoreIT extends DelayStoreContractIT implements LanedEnvelopes {

    private static final AtomicInteger PREFIXES = new AtomicInteger();
    private static Path dir;
    static RedisCluster cluster;

    @BeforeAll
    static void startCluster() throws IOException {
        dir = Files.createTempDirectory("cluster-contract");
        cluster = RedisCluster.start(dir, 3, 0);
    }

    @AfterAll
    static void stopCluster() throws IOException {
        if (cluster != null) {
            cluster.close();
        }
        io.delaybridge.testkit.TempDirs.deleteRecursively(dir);
    }

    @Override
    protected DelayStore newStore() {
        return RedisDelayStore.connect(
                RedisStoreOptions.of(cluster.uri(), TOPIC, SHARDS).withKeyPrefix("cc" + PREFIXES.incrementAndGet()));
    }

    @Test
    void findsTheClusterFromItsUri() {
        assertEquals(RedisMode.CLUSTER, ((RedisDelayStore) store).mode());
    }
}

package io.delaybridge.bridge.e2e;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.testkit.RedisCluster;
import io.delaybridge.testkit.RedisServer;
import io.delaybridge.testkit.TempDirs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Every admin route of {@link OperationsApiIT} (message GET/DELETE/reschedule/fire-now, bulk cancel, {@code /shards},
 * {@code /pending/histogram}) on a bridge whose store is a real 3-master Redis Cluster, named by its seeds: a
 * cross-slot command anywhere fails here.
 */
class ClusterOperationsApiIT extends OperationsApiIT {

    private static final RedisCluster CLUSTER;

    static {
        try {
            Path dir = Files.createTempDirectory("cluster-ops");
            CLUSTER = RedisCluster.start(dir, 3, 0);
            redisUriOverride = CLUSTER.uri();
            redisOverride = () -> {
                CLUSTER.close();
                TempDirs.deleteRecursively(dir);
            };
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void theBridgeKeepsItsShardsOnTheCluster() {
        long keys = 0;
        for (RedisServer master : CLUSTER.masters()) {
            RedisClient client = RedisClient.create("redis://127.0.0.1:" + master.port());
            try (StatefulRedisConnection<String, String> c = client.connect()) {
                keys += c.sync().dbsize();
            } finally {
                client.shutdown();
            }
        }
        assertTrue(keys > 0, "the bridge wrote nothing to the cluster " + CLUSTER.uri());
    }
}

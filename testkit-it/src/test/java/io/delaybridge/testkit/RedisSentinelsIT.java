package io.delaybridge.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RedisSentinelsIT {

    @TempDir
    Path dir;

    @Test
    void theSentinelsPromoteTheReplicaWhenTheMasterIsKilled() throws Exception {
        try (RedisSentinels redis = RedisSentinels.start(dir, "delay")) {
            System.out.printf(
                    "master, replica and three sentinels ready in %d ms: %s%n",
                    redis.startDuration().toMillis(), redis.uri());
            List<Integer> sentinels = redis.sentinelPorts();
            assertEquals(3, sentinels.size());
            assertEquals(
                    "redis-sentinel://127.0.0.1:" + sentinels.get(0) + ",127.0.0.1:" + sentinels.get(1) + ",127.0.0.1:"
                            + sentinels.get(2) + "#delay",
                    redis.uri());
            RedisServer master = redis.master();
            RedisServer replica = redis.replica();
            assertEquals(redis.servers().get(0), master);
            try (Resp resp = Resp.connect(master.port(), 2000)) {
                assertEquals("OK", resp.call("SET", "durable", "yes"));
                assertEquals(1L, resp.call("WAIT", "1", "2000"));
            }

            long killedAt = System.nanoTime();
            assertEquals(master, redis.killMaster());
            RedisServer promoted = redis.awaitFailover(Duration.ofSeconds(30));
            System.out.printf(
                    "sentinels promoted %d %d ms after the master was killed%n",
                    promoted.port(),
                    Duration.ofNanos(System.nanoTime() - killedAt).toMillis());
            assertEquals(replica, promoted);
            assertEquals(promoted, redis.master());
            assertNotEquals(master, redis.master());
            try (Resp resp = Resp.connect(promoted.port(), 2000)) {
                assertEquals("yes", resp.call("GET", "durable"));
                assertEquals("OK", resp.call("SET", "after", "failover"));
            }
            assertTrue(redis.uri().endsWith("#delay"));
        }
    }
}

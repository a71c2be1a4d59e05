package io.delaybridge.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

@Execution(ExecutionMode.CONCURRENT) // beside the other classes; its own tests one after the other
class RedisClusterIT {

    @TempDir
    Path dir;

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    void formsAClusterWhereEveryKeyLandsOnTheMasterTheKitComputes() throws Exception {
        try (RedisCluster cluster = RedisCluster.start(dir, 3, 0)) {
            System.out.printf(
                    "Redis Cluster of 3 masters formed in %d ms: %s%n",
                    cluster.formDuration().toMillis(), cluster.uri());
            List<RedisServer> masters = cluster.masters();
            assertEquals(3, masters.size());
            assertEquals(cluster.nodes(), masters);
            assertEquals(List.of(), cluster.replicas());
            assertEquals(
                    "redis://127.0.0.1:" + masters.get(0).port() + ",127.0.0.1:"
                            + masters.get(1).port() + ",127.0.0.1:"
                            + masters.get(2).port(),
                    cluster.uri());
            assertEquals(masters.get(0), cluster.masterOfSlot(0));
            assertEquals(masters.get(2), cluster.masterOfSlot(RedisSlots.SLOTS - 1));

            Set<RedisServer> used = new HashSet<>();
            for (int shard = 0; shard < 16; shard++) {
                String key = "dq:{delay-intake:" + shard + "}:due";
                RedisServer owner = cluster.masterOfKey(key);
                used.add(owner);
                try (Resp resp = Resp.connect(owner.port(), 2000)) {
                    assertEquals((long) RedisSlots.slotOf(key), resp.call("CLUSTER", "KEYSLOT", key));
                    assertEquals(1L, resp.call("ZADD", key, "1", "m"));
                }
                for (RedisServer other : masters) {
                    if (other != owner) {
                        try (Resp resp = Resp.connect(other.port(), 2000)) {
                            Resp.ErrorReply moved =
                                    assertThrows(Resp.ErrorReply.class, () -> resp.call("ZADD", key, "1", "m"));
                            assertEquals(
                                    "MOVED " + RedisSlots.slotOf(key) + " 127.0.0.1:" + owner.port(),
                                    moved.getMessage());
                        }
                    }
                }
            }
            assertEquals(3, used.size(), "16 shards spread over the 3 masters");
            for (RedisServer node : cluster.nodes()) {
                try (Resp resp = Resp.connect(node.port(), 2000)) {
                    assertEquals("always", ((List<?>) resp.call("CONFIG", "GET", "appendfsync")).get(1));
                }
            }
        }
    }

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    void aKilledMastersReplicaTakesOverWithTheDataAndTheMasterRejoinsAsReplica() throws Exception {
        try (RedisCluster cluster = RedisCluster.start(dir, 3, 1)) {
            System.out.printf(
                    "Redis Cluster of 3 masters and 3 replicas formed in %d ms%n",
                    cluster.formDuration().toMillis());
            assertEquals(6, cluster.nodes().size());
            assertEquals(3, cluster.masters().size());
            assertEquals(3, cluster.replicas().size());
            String key = "dq:{delay-intake:3}:payloads";
            RedisServer victim = cluster.masterOfKey(key);
            try (Resp resp = Resp.connect(victim.port(), 2000)) {
                assertEquals(1L, resp.call("HSET", key, "id-1", "payload"));
                assertEquals(1L, resp.call("WAIT", "1", "2000"), "the replica acknowledged the write");
            }

            long killedAt = System.nanoTime();
            cluster.kill(victim);
            RedisServer promoted = cluster.awaitFailover(Duration.ofSeconds(30));
            System.out.printf(
                    "replica %d took over %d ms after its master was killed%n",
                    promoted.port(),
                    Duration.ofNanos(System.nanoTime() - killedAt).toMillis());
            assertNotEquals(victim, promoted);
            assertEquals(promoted, cluster.masterOfKey(key));
            assertEquals(3, cluster.masters().size());
            assertFalse(cluster.masters().contains(victim));
            try (Resp resp = Resp.connect(promoted.port(), 2000)) {
                assertEquals("payload", resp.call("HGET", key, "id-1"));
            }

            cluster.restart(victim);
            assertTrue(cluster.replicas().contains(victim), "the old master rejoined as a replica");
            assertEquals(promoted, cluster.masterOfKey(key));
            try (Resp resp = Resp.connect(victim.port(), 2000)) {
                assertEquals("slave", ((List<?>) resp.call("ROLE")).get(0));
            }
        }
    }

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    void awaitingAFailoverWithoutAKilledMasterFails() {
        try (RedisCluster cluster = RedisCluster.start(dir, 3, 0)) {
            assertThrows(IllegalStateException.class, () -> cluster.awaitFailover(Duration.ofSeconds(1)));
            assertThrows(IllegalArgumentException.class, () -> cluster.masterOfSlot(RedisSlots.SLOTS));
        }
    }
}

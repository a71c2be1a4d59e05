package io.delaybridge.bridge.store.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.bridge.store.ClaimBatch;
import io.delaybridge.bridge.store.FarEntry;
import io.delaybridge.bridge.store.FarHour;
import io.delaybridge.bridge.store.MessageAdmin;
import io.delaybridge.bridge.store.MessageAdmin.RescheduleResult;
import io.delaybridge.bridge.store.MessageRef;
import io.delaybridge.bridge.store.StoreConfigurationException;
import io.delaybridge.bridge.store.StoreDataLostException;
import io.delaybridge.bridge.store.WriteOp;
import io.delaybridge.bridge.store.WriteResult;
import io.delaybridge.schemas.IntakeOrigin;
import io.delaybridge.testkit.RedisCluster;
import io.delaybridge.testkit.RedisServer;
import io.delaybridge.testkit.TempDirs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The store on a real 3-master Redis Cluster beyond the contract: every shard operation and admin call across 16
 * shards spread over all masters, NOSCRIPT recovery, data-loss detection naming the node, and the start-up checks that
 * refuse a cluster the store cannot keep its guarantees on.
 */
class ClusterStoreIT {

    private static final String TOPIC = "delay-intake";
    private static final int SHARDS = 16;
    private static final AtomicInteger PREFIXES = new AtomicInteger();
    private static Path dir;
    private static RedisCluster cluster;

    @BeforeAll
    static void startCluster() throws IOException {
        dir = Files.createTempDirectory("cluster-store");
        cluster = RedisCluster.start(dir, 3, 0);
    }

    @AfterAll
    static void stopCluster() throws IOException {
        if (cluster != null) {
            cluster.close();
        }
        TempDirs.deleteRecursively(dir);
    }

    private static RedisStoreOptions options() {
        return RedisStoreOptions.of(cluster.uri(), TOPIC, SHARDS).withKeyPrefix("cs" + PREFIXES.incrementAndGet());
    }

    private static WriteOp.Schedule record(int partition, long offset, long dueAt) {
        return new WriteOp.Schedule(
                TOPIC + "-" + partition + "-" + offset,
                dueAt,
                new IntakeOrigin(TOPIC, partition, offset),
                ("m" + offset).getBytes(StandardCharsets.UTF_8));
    }

    /** Runs {@code action} on a plain connection to one node. */
    private static void onNode(
            RedisServer node,
            java.util.function.Consumer<io.lettuce.core.api.sync.RedisCommands<String, String>> action) {
        RedisClient client = RedisClient.create("redis://127.0.0.1:" + node.port());
        try (StatefulRedisConnection<String, String> c = client.connect()) {
            action.accept(c.sync());
        } finally {
            client.shutdown();
        }
    }

    @Test
    void theFarIndexWorksOnEveryShardOfEveryMaster() throws Exception {
        try (RedisDelayStore store = RedisDelayStore.connect(options())) {
            FarIndex far = (FarIndex) store.far();
            long hour = store.now() / FarIndex.HOUR_MILLIS + 24;
            for (int shard = 0; shard < SHARDS; shard++) {
                FarEntry first = new FarEntry(shard, 10, hour * FarIndex.HOUR_MILLIS + shard);
                FarEntry second = new FarEntry(shard, 11, (hour + 1) * FarIndex.HOUR_MILLIS);
                assertEquals(2, FarAppend.append(store, shard, List.of(second, first)), "shard " + shard);
                assertEquals(List.of(hour), far.farHours(shard, hour * FarIndex.HOUR_MILLIS));
                FarHour read = far.readFar(shard, hour, 0);
                assertEquals(List.of(first), read.entries());
                long epoch = store.acquire(shard);
                assertEquals(0, far.farThawed(shard, epoch, hour, read.length(), 0));
                assertEquals(1, far.farCount(shard));
                // a thaw stores through the write pipeline, on the master of the shard's keys
                assertEquals(
                        List.of(WriteResult.STORED),
                        far.thaw(shard, epoch, List.of(record(shard, 12, store.now() + 60_000)))
                                .get(10, TimeUnit.SECONDS),
                        "thawed on shard " + shard);
                assertEquals(1, store.stats(shard).pending(), "shard " + shard);
            }
        }
    }

    @Test
    void everyOperationAndAdminCallWorksAcrossAllShardsAndMasters() throws Exception {
        try (RedisDelayStore store = RedisDelayStore.connect(options())) {
            assertEquals(RedisMode.CLUSTER, store.mode());
            MessageAdmin admin = store.messageAdmin();
            long now = store.now();
            List<WriteOp> ops = new ArrayList<>();
            for (int shard = 0; shard < SHARDS; shard++) {
                ops.add(record(shard, 1, now - 1));
                ops.add(record(shard, 2, now + 3_600_000));
                ops.add(new WriteOp.Schedule(
                        "explicit-" + shard,
                        now + 7_200_000,
                        new IntakeOrigin(TOPIC, shard, 3),
                        "e".getBytes(StandardCharsets.UTF_8)));
            }
            ops.add(new WriteOp.Cancel("explicit-3"));
            List<WriteResult> results = store.write(ops).get(10, TimeUnit.SECONDS);
            assertEquals(ops.size(), results.size());
            assertEquals(WriteResult.CANCELLED, results.get(results.size() - 1));

            Set<String> nodes = new HashSet<>();
            for (int shard = 0; shard < SHARDS; shard++) {
                nodes.add(store.nodeOf(shard));
                assertEquals(
                        cluster.masterOfKey(new String(store.keys().shard(shard).due(), StandardCharsets.UTF_8))
                                .port(),
                        Integer.parseInt(store.nodeOf(shard)
                                .substring(store.nodeOf(shard).indexOf(':') + 1)));
            }
            assertEquals(3, nodes.size(), "16 shards spread over the 3 masters: " + nodes);
            long pending = 0;
            for (int shard = 0; shard < SHARDS; shard++) {
                pending += store.stats(shard).pending();
            }
            assertEquals(3 * SHARDS - 1, pending, "all but the cancelled one");

            for (int shard = 0; shard < SHARDS; shard++) {
                int fshard = shard;
                long epoch = store.acquire(shard);
                assertEquals(epoch, admin.epoch(shard).orElseThrow());
                assertEquals(1, admin.countDue(shard, 0, now));
                assertTrue(
                        admin.scanDue(shard, now, Long.MAX_VALUE, 0, 10).stream()
                                .anyMatch(m -> m.id().equals(TOPIC + "-" + fshard + "-2")),
                        "shard " + shard);
                ClaimBatch batch = store.claim(shard, epoch, 10, 30_000);
                assertEquals(1, batch.messages().size(), "shard " + shard);
                assertTrue(admin.earliestLease(shard).isPresent());
                MessageRef ref = batch.messages().get(0).ref();
                assertTrue(store.retry(shard, epoch, ref, now - 1));
                ClaimBatch again = store.claim(shard, epoch, 10, 1);
                assertEquals(2, again.messages().get(0).attempt());
                Thread.sleep(5);
                assertEquals(1, store.reclaim(shard, epoch, 10));
                ClaimBatch handed = store.claim(shard, epoch, 10, 30_000);
                assertEquals(
                        1, store.handBackAsync(shard, epoch, handed.messages()).get(10, TimeUnit.SECONDS));
                ClaimBatch third = store.claim(shard, epoch, 10, 30_000);
                assertEquals(
                        handed.messages().get(0).attempt(),
                        third.messages().get(0).attempt(),
                        "a hand-back counts no attempt");
                assertEquals(
                        1,
                        store.ack(shard, epoch, List.of(third.messages().get(0).ref())));
            }
            for (int shard = 0; shard < SHARDS; shard++) {
                String id = TOPIC + "-" + shard + "-2";
                assertEquals(
                        MessageAdmin.State.PENDING,
                        admin.inspect(id).orElseThrow().state());
                assertEquals(RescheduleResult.RESCHEDULED, admin.reschedule(id, now - 5));
            }
            admin.probeWrite();
            assertNull(admin.incarnationProblem());
        }
    }

    @Test
    void scriptsForgottenOnEveryNodeAreLoadedAgainWithoutLosingAWrite() throws Exception {
        try (RedisDelayStore store = RedisDelayStore.connect(options())) {
            long now = store.now();
            for (RedisServer master : cluster.masters()) {
                onNode(master, r -> r.scriptFlush());
            }
            List<WriteOp> ops = new ArrayList<>();
            for (int shard = 0; shard < SHARDS; shard++) {
                ops.add(record(shard, 10, now - 1));
            }
            List<WriteResult> results = store.write(ops).get(10, TimeUnit.SECONDS);
            assertTrue(results.stream().allMatch(r -> r == WriteResult.STORED), results.toString());
            for (RedisServer master : cluster.masters()) {
                onNode(master, r -> r.scriptFlush());
            }
            for (int shard = 0; shard < SHARDS; shard++) {
                long epoch = store.acquire(shard);
                assertEquals(1, store.claim(shard, epoch, 10, 30_000).messages().size(), "shard " + shard);
            }
        }
    }

    @Test
    void aNodeThatLostItsShardsIsNamedAtStartUp() throws Exception {
        RedisStoreOptions options = options();
        String lostKey;
        RedisServer owner;
        try (RedisDelayStore store = RedisDelayStore.connect(options)) {
            // a shard whose node is not the meta hash's node: the meta hash survives, the shard copy is gone
            String metaNode = store.access().connections().nodeOf(store.keys().meta());
            int shard = 0;
            while (store.nodeOf(shard).equals(metaNode)) {
                shard++;
            }
            lostKey = new String(store.keys().shard(shard).incarnation(), StandardCharsets.UTF_8);
            owner = cluster.masterOfKey(lostKey);
            assertNull(store.messageAdmin().incarnationProblem());
            onNode(owner, r -> r.del(lostKey));
            String problem = store.messageAdmin().incarnationProblem();
            assertTrue(problem.contains("127.0.0.1:" + owner.port()), problem);
        }
        StoreDataLostException e = assertThrows(StoreDataLostException.class, () -> RedisDelayStore.connect(options));
        assertTrue(
                e.getMessage().contains("127.0.0.1:" + owner.port())
                        && e.getMessage().contains(lostKey),
                e.getMessage());
    }

    @Test
    void theHealthProbeNamesAMasterThatRefusesWrites() {
        try (RedisDelayStore store = RedisDelayStore.connect(options())) {
            MessageAdmin admin = store.messageAdmin();
            admin.probeWrite();
            RedisServer refusing = cluster.masters().get(2);
            onNode(refusing, r -> r.configSet("min-replicas-to-write", "1")); // NOREPLICAS for every write
            try {
                io.delaybridge.bridge.store.StoreException e =
                        assertThrows(io.delaybridge.bridge.store.StoreException.class, admin::probeWrite);
                assertTrue(e.getMessage().contains("Redis 127.0.0.1:" + refusing.port()), e.getMessage());
            } finally {
                onNode(refusing, r -> r.configSet("min-replicas-to-write", "0"));
            }
            admin.probeWrite();
        }
    }

    @Test
    void waitReplicasAboveTheReplicasOfAMasterIsRefused() {
        StoreConfigurationException e = assertThrows(
                StoreConfigurationException.class,
                () -> RedisDelayStore.connect(options().withWait(1, java.time.Duration.ofSeconds(1))));
        assertTrue(
                e.getMessage().contains("redis.waitReplicas is 1")
                        && e.getMessage().contains("0 replicas")
                        && e.getMessage().contains("--cluster-slave"),
                e.getMessage());
    }

    @Test
    void anEvictingMasterIsRefusedByName() {
        RedisServer second = cluster.masters().get(1);
        onNode(second, r -> r.configSet("maxmemory-policy", "allkeys-lru"));
        try {
            StoreConfigurationException e =
                    assertThrows(StoreConfigurationException.class, () -> RedisDelayStore.connect(options()));
            assertTrue(
                    e.getMessage().contains("127.0.0.1:" + second.port())
                            && e.getMessage().contains("maxmemory-policy allkeys-lru")
                            && e.getMessage().contains("noeviction"),
                    e.getMessage());
        } finally {
            onNode(second, r -> r.configSet("maxmemory-policy", "noeviction"));
        }
    }

    @Test
    void aForcedModeMustMatchTheServer() {
        StoreConfigurationException e = assertThrows(
                StoreConfigurationException.class,
                () -> RedisDelayStore.connect(options().withMode(RedisMode.STANDALONE)));
        assertTrue(e.getMessage().contains("redis.mode is standalone"), e.getMessage());
    }
}

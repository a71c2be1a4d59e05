package io.delaybridge.bridge.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.delaybridge.bridge.store.ShardRouter;
import io.delaybridge.bridge.store.redis.RedisKeys;
import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.RedisCluster;
import io.delaybridge.testkit.RedisServer;
import io.delaybridge.testkit.TestServers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Redis Cluster master fail-over with {@code redis.waitReplicas: 0} that loses the tail of what an intake partition
 * wrote to another master than its own shard's: records with explicit ids whose shards live there. The replica of that
 * master is held from processing the stream ({@code CLIENT PAUSE WRITE}) while the tail is stored and committed, the
 * master is SIGKILLed and its replica promoted. The marks in that master's shards are behind: the bridge finds the gap,
 * reads the tail again and delivers every record.
 */
@ExtendWith(RealServersExtension.class)
class ClusterGapIT {

    private static final int PARTITIONS = 4;
    private static final int BEFORE = 10;
    private static final int TAIL = 20;

    @TempDir
    Path dir;

    @Test
    void aTailLostOnAnotherMasterIsFoundReadAgainAndDelivered(TestServers servers) throws Exception {
        try (DeliveryFixture fixture = new DeliveryFixture(servers);
                RedisCluster cluster = RedisCluster.start(dir, 3, 1)) {
            TestNames names = fixture.names;
            String target = fixture.target;
            KafkaClient kafka = fixture.kafka;
            KafkaClient.Collector delivered = fixture.collectTarget();
            TestBridge bridge = new TestBridge(
                            names,
                            servers.kafkaBootstrap(),
                            cluster.uri(),
                            TestBridge.set("redis.waitReplicas", "0"),
                            TestBridge.set("redis.commandTimeout", "2s"))
                    .start();
            try {
                int partition = -1;
                for (int i = 0; i < BEFORE; i++) {
                    partition = kafka.send(
                                    names.intake(),
                                    "k",
                                    "v" + i,
                                    null,
                                    DelayHeaders.TARGET,
                                    target,
                                    DelayHeaders.DELAY_MS,
                                    "0")
                            .partition();
                }
                await().atMost(Duration.ofSeconds(60))
                        .until(() -> delivered.values().size() == BEFORE);

                RedisKeys keys = new RedisKeys(names.keyPrefix(), names.intake(), PARTITIONS);
                ShardRouter router = new ShardRouter(names.intake(), PARTITIONS);
                RedisServer home = cluster.masterOfKey(key(keys.shard(partition).due()));
                RedisServer other = cluster.masters().stream()
                        .filter(m -> m != home)
                        .findFirst()
                        .orElseThrow();
                List<String> ids = new ArrayList<>();
                for (int i = 0; ids.size() < TAIL; i++) {
                    if (cluster.masterOfKey(key(
                                    keys.shard(router.place("gap-" + i).shard()).due()))
                            == other) {
                        ids.add("gap-" + i);
                    }
                }
                RedisServer replica = cluster.replicas().stream()
                        .filter(r -> isReplicaOf(r, other))
                        .findFirst()
                        .orElseThrow();

                replica.call("CLIENT", "PAUSE", "60000", "WRITE");
                for (int i = 0; i < TAIL; i++) {
                    kafka.send(
                            names.intake(),
                            "k",
                            "v" + (BEFORE + i),
                            null,
                            DelayHeaders.TARGET,
                            target,
                            DelayHeaders.DELAY_MS,
                            "12s",
                            DelayHeaders.ID,
                            ids.get(i));
                }
                kafka.flush();
                int p = partition;
                await().atMost(Duration.ofSeconds(60))
                        .until(() -> kafka.committedOffsets(names.group(), names.intake())
                                        .getOrDefault(p, 0L)
                                == BEFORE + TAIL);

                cluster.kill(other);
                long killedAt = System.nanoTime();
                await().atMost(Duration.ofSeconds(30))
                        .until(() ->
                                ((String) replica.call("INFO", "replication")).contains("master_link_status:down"));
                replica.call("CLIENT", "UNPAUSE");
                cluster.awaitFailover(Duration.ofSeconds(60));
                long promotedMillis = (System.nanoTime() - killedAt) / 1_000_000;
                long promotedAt = System.nanoTime();
                Object mark = replica.call(
                        "HGET",
                        key(keys.shard(router.place(ids.get(0)).shard()).positions()),
                        Integer.toString(partition));
                assertEquals(Long.toString(BEFORE), mark, "the promoted replica holds the mark from before the tail");

                await().atMost(Duration.ofSeconds(60)).until(() -> bridge.meter("delay.store.gaps") > 0);
                long detectedMillis = (System.nanoTime() - promotedAt) / 1_000_000;
                await().atMost(Duration.ofSeconds(90))
                        .until(() -> delivered.values().size() == BEFORE + TAIL);
                System.out.printf(
                        "Cluster fail-over with waitReplicas 0 lost the last %d records' writes on another"
                                + " master: replica promoted %d ms after SIGKILL; the bridge found %d gaps %d ms after, read %d"
                                + " records again; %d of %d records delivered (%d copies)%n",
                        TAIL,
                        promotedMillis,
                        bridge.meter("delay.store.gaps"),
                        detectedMillis,
                        bridge.meter("delay.store.gap-records"),
                        delivered.values().size(),
                        BEFORE + TAIL,
                        delivered.size());
                Set<String> expected = new HashSet<>();
                for (int i = 0; i < BEFORE + TAIL; i++) {
                    expected.add("v" + i);
                }
                assertEquals(expected, delivered.values(), "every record delivered");
                await().atMost(TestBridge.METRIC_WAIT)
                        .until(() -> bridge.meter("delay.store.gap-records") >= TAIL); // the tail was read again
            } finally {
                bridge.stop();
            }
        }
    }

    private static boolean isReplicaOf(RedisServer replica, RedisServer master) {
        List<?> role = (List<?>) replica.call("ROLE");
        return "slave".equals(role.get(0)) && Long.valueOf(master.port()).equals(role.get(2));
    }

    private static String key(byte[] key) {
        return new String(key, StandardCharsets.UTF_8);
    }
}

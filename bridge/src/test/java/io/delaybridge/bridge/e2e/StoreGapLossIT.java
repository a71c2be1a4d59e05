package io.delaybridge.bridge.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.codahale.metrics.health.HealthCheck;
import io.delaybridge.bridge.store.redis.RedisKeys;
import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.TestServers;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A store gap that Kafka can no longer repair: the store's position of a partition is set back by hand (as a replica
 * that missed the master's tail would hold it) and the intake topic's records from there are deleted (as retention
 * would). The bridge finds the gap by its idle check, reads again what Kafka still has, and reports the rest as lost:
 * an unhealthy pipeline naming the range. It does not stop: a record produced afterwards is still delivered.
 */
@ExtendWith(RealServersExtension.class)
class StoreGapLossIT {

    private static final int PARTITIONS = 4;

    @Test
    void aGapKafkaNoLongerHasIsReportedAsLossAndTheIntakeGoesOn(TestServers servers) throws Exception {
        TestNames names = TestNames.unique(servers);
        String target = names.target("out");
        RedisClient client = RedisClient.create(servers.redisUri());
        try (KafkaClient kafka = new KafkaClient(servers.kafkaBootstrap());
                Admin admin =
                        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, servers.kafkaBootstrap()));
                StatefulRedisConnection<byte[], byte[]> redis = client.connect(ByteArrayCodec.INSTANCE)) {
            kafka.createTopics(1, target);
            KafkaClient.Collector delivered = kafka.collect(target);
            TestBridge bridge = new TestBridge(names, servers.kafkaBootstrap(), servers.redisUri()).start();
            try {
                for (int i = 0; i < 10; i++) {
                    kafka.send(
                            names.intake(),
                            "same-key",
                            "v" + i,
                            null,
                            DelayHeaders.TARGET,
                            target,
                            DelayHeaders.DELAY_MS,
                            "1h");
                }
                kafka.flush();
                Map<Integer, Long> committed = new java.util.TreeMap<>();
                await().atMost(Duration.ofSeconds(60)).until(() -> {
                    committed.clear();
                    committed.putAll(kafka.committedOffsets(names.group(), names.intake()));
                    return committed.values().stream()
                                    .mapToLong(Long::longValue)
                                    .sum()
                            == 10;
                });
                int partition = committed.entrySet().stream()
                        .filter(e -> e.getValue() == 10)
                        .findFirst()
                        .orElseThrow()
                        .getKey();

                // the store "lost" offsets [4, 10); Kafka lost [0, 7)
                RedisKeys keys = new RedisKeys(names.keyPrefix(), names.intake(), PARTITIONS);
                admin.deleteRecords(
                                Map.of(new TopicPartition(names.intake(), partition), RecordsToDelete.beforeOffset(7)))
                        .all()
                        .get(30, TimeUnit.SECONDS);
                redis.sync()
                        .hset(
                                keys.shard(keys.homeShard(partition)).positions(),
                                Integer.toString(partition).getBytes(StandardCharsets.UTF_8),
                                "4".getBytes(StandardCharsets.UTF_8));

                await().atMost(Duration.ofSeconds(30))
                        .until(() -> !pipeline(bridge).isHealthy());
                String message = pipeline(bridge).getMessage();
                assertTrue(
                        message.contains("offsets [4, 10)") && message.contains("no longer has offsets [4, 7)"),
                        message);
                bridge.awaitMeter("delay.store.gaps", 1);
                bridge.awaitMeter("delay.store.gap-records", 3); // offsets 7, 8 and 9 are read again
                await().atMost(Duration.ofSeconds(30)).until(() -> position(redis, keys, partition) == 10L);

                kafka.send(
                        names.intake(),
                        "same-key",
                        "after",
                        null,
                        DelayHeaders.TARGET,
                        target,
                        DelayHeaders.DELAY_MS,
                        "0");
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> delivered.received().stream().anyMatch(r -> "after".equals(r.value())));
                assertTrue(!pipeline(bridge).isHealthy(), "the loss stays reported");
            } finally {
                bridge.stop();
            }
        } finally {
            client.shutdown();
        }
    }

    private static long position(StatefulRedisConnection<byte[], byte[]> redis, RedisKeys keys, int partition) {
        byte[] value = redis.sync()
                .hget(
                        keys.shard(keys.homeShard(partition)).positions(),
                        Integer.toString(partition).getBytes(StandardCharsets.UTF_8));
        return value == null ? -1 : Long.parseLong(new String(value, StandardCharsets.UTF_8));
    }

    private static HealthCheck.Result pipeline(TestBridge bridge) {
        return bridge.support().getEnvironment().healthChecks().runHealthCheck("pipeline");
    }
}

package io.delaybridge.bridge.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.RedisServer;
import io.delaybridge.testkit.TestServers;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** When Redis answers OOM the intake pauses without committing, and resumes once there is room, losing nothing. */
@ExtendWith(RealServersExtension.class)
class RedisFullIT {

    private static final int RECORDS = 300;

    @TempDir
    Path dir;

    @Test
    void aFullRedisPausesIntakeWithoutCommittingAndNothingIsLostOnceThereIsRoom(TestServers servers) throws Exception {
        TestNames names = TestNames.unique(servers);
        String target = names.target("out");
        String value = "v".repeat(20_000);
        try (KafkaClient kafka = new KafkaClient(servers.kafkaBootstrap());
                RedisServer redis = RedisServer.start(dir.resolve("redis"), 0, List.of("--maxmemory", "4mb"));
                Admin admin =
                        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, servers.kafkaBootstrap()))) {
            kafka.createTopics(1, target);
            TestBridge bridge = new TestBridge(
                            names,
                            servers.kafkaBootstrap(),
                            redis.uri(),
                            TestBridge.set("intake.maxRetryBackoff", "2s"))
                    .start();
            try {
                for (int i = 0; i < RECORDS; i++) {
                    kafka.send(
                            names.intake(),
                            "k" + i,
                            value,
                            null,
                            DelayHeaders.TARGET,
                            target,
                            DelayHeaders.DELAY_MS,
                            "1h");
                }
                // Redis fills up: some records are stored, the rest wait, and their offsets stay uncommitted
                await().atMost(Duration.ofSeconds(30)).until(() -> pending(redis, names) > 0);
                await().during(Duration.ofSeconds(2))
                        .atMost(Duration.ofSeconds(30))
                        .until(() -> committed(admin, names) < RECORDS && pending(redis, names) < RECORDS);
                long committedWhileFull = committed(admin, names); // read first: what Redis holds only grows
                long storedWhileFull = pending(redis, names);
                assertTrue(
                        committedWhileFull <= storedWhileFull,
                        "committed " + committedWhileFull + " but Redis holds only " + storedWhileFull);

                setMaxmemory(redis, "0"); // room again
                await().atMost(Duration.ofSeconds(60)).until(() -> committed(admin, names) == RECORDS);
                assertEquals(RECORDS, pending(redis, names), "every record stored once, none lost, none twice");
            } finally {
                bridge.stop();
            }
        }
    }

    /** Pending messages counted in Redis itself (the bridge's gauge is cached for a second). */
    private static long pending(RedisServer redis, TestNames names) {
        RedisClient client = RedisClient.create(redis.uri());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            long pending = 0;
            ScanCursor cursor = ScanCursor.INITIAL;
            do {
                KeyScanCursor<String> page = connection
                        .sync()
                        .scan(
                                cursor,
                                ScanArgs.Builder.matches(names.keyPrefix() + ":{" + names.intake() + ":*}:due*")
                                        .limit(100));
                for (String key : page.getKeys()) {
                    pending += connection.sync().zcard(key);
                }
                cursor = page;
            } while (!cursor.isFinished());
            return pending;
        } finally {
            client.shutdown();
        }
    }

    private static long committed(Admin admin, TestNames names) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(names.group())
                .partitionsToOffsetAndMetadata()
                .get();
        return offsets.entrySet().stream()
                .filter(e -> e.getKey().topic().equals(names.intake()))
                .mapToLong(e -> e.getValue().offset())
                .sum();
    }

    private static void setMaxmemory(RedisServer redis, String value) {
        RedisClient client = RedisClient.create(redis.uri());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            connection.sync().configSet("maxmemory", value);
        } finally {
            client.shutdown();
        }
    }
}

package io.delaybridge.bridge.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.RedisServer;
import io.delaybridge.testkit.TestServers;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** Redis goes away while the consumer group rebalances; when it is back, the bridge carries on by itself. */
@ExtendWith(RealServersExtension.class)
class RedisOutageIT {

    /** kafka.intakePartitions in test-bridge.yml. */
    private static final int PARTITIONS = 4;

    @Test
    void aRebalanceDuringARedisOutageDoesNotStopTheBridge(TestServers servers, @TempDir Path dir) {
        TestNames names = TestNames.unique(servers);
        String target = names.target("out");
        try (RedisServer redis = RedisServer.start(dir);
                KafkaClient kafka = new KafkaClient(servers.kafkaBootstrap());
                TestBridge bridge = new TestBridge(names, servers.kafkaBootstrap(), redis.uri()).start()) {
            kafka.createTopics(1, target);
            KafkaClient.Collector delivered = kafka.collect(target);
            kafka.send(names.intake(), "before", "1", null, DelayHeaders.TARGET, target, DelayHeaders.DELAY_MS, "0");
            await().atMost(Duration.ofSeconds(30)).until(() -> delivered.size() == 1);

            redis.kill();
            // another member joins the group: the bridge's partitions are revoked and assigned again while Redis is
            // unreachable; then it leaves, and they come back once more
            try (KafkaConsumer<byte[], byte[]> joiner = joiner(servers.kafkaBootstrap(), names)) {
                joiner.subscribe(List.of(names.intake()));
                await().atMost(Duration.ofSeconds(30)).until(() -> {
                    joiner.poll(Duration.ofMillis(100));
                    return !joiner.assignment().isEmpty();
                });
            }
            // the bridge alone holds all partitions again, and took them while Redis was still down
            await().atMost(Duration.ofSeconds(60))
                    .ignoreExceptions()
                    .until(() -> kafka.groupAssignmentSizes(names.group()).equals(List.of(PARTITIONS)));
            redis.restart();

            kafka.send(names.intake(), "after", "2", null, DelayHeaders.TARGET, target, DelayHeaders.DELAY_MS, "0");
            await().atMost(Duration.ofSeconds(60)).until(() -> delivered.size() == 2);
            assertEquals("after", delivered.received().get(1).key());
            assertTrue(bridge.admin("/healthcheck").at("/pipeline/healthy").asBoolean(), "the intake still runs");
        }
    }

    private static KafkaConsumer<byte[], byte[]> joiner(String bootstrap, TestNames names) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, names.group());
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, CooperativeStickyAssignor.class.getName());
        return new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }
}

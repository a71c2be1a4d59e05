package io.delaybridge.bridge.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.codahale.metrics.health.HealthCheck;
import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.RedisServer;
import io.delaybridge.testkit.TestServers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Redis that lost its data is noticed, not carried on with: the bridge stops intake and pump and reports unhealthy,
 * whether Redis is emptied under a running bridge or a bridge starts on a Redis that came back empty.
 */
@ExtendWith(RealServersExtension.class)
class RedisDataLossIT {

    @TempDir
    Path dir;

    @Test
    void aBridgeStartingOnARedisThatCameBackEmptyStopsAndReportsIt(TestServers servers) throws Exception {
        try (DeliveryFixture fixture = new DeliveryFixture(servers);
                RedisServer redis = RedisServer.start(dir.resolve("redis"))) {
            TestNames names = fixture.names;
            String target = fixture.target;
            KafkaClient kafka = fixture.kafka;
            kafka.createTopics(1, target);
            TestBridge first = new TestBridge(names, servers.kafkaBootstrap(), redis.uri()).start();
            kafka.send(
                    names.intake(),
                    "k",
                    "pending for an hour",
                    null,
                    DelayHeaders.TARGET,
                    target,
                    DelayHeaders.DELAY_MS,
                    "1h");
            await().atMost(Duration.ofSeconds(30)).until(() -> pending(first) == 1);
            first.stop(); // graceful: the offset of the stored record is committed

            redis.kill();
            deleteDataFiles(redis.dataDir()); // Redis comes back empty: the pending record is gone
            redis.restart();

            TestBridge second = new TestBridge(names, servers.kafkaBootstrap(), redis.uri()).start();
            try {
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> !pipeline(second).isHealthy());
                HealthCheck.Result result = pipeline(second);
                assertTrue(result.getMessage().contains("Redis lost the data"), result.getMessage());
                assertTrue(result.getMessage().contains("incarnation"), result.getMessage());
                assertEquals(0, pending(second), "nothing was stored over the lost data");
            } finally {
                second.stop();
            }
        }
    }

    @Test
    void aRedisEmptiedUnderARunningBridgeStopsIntakeAndPump(TestServers servers) throws Exception {
        try (DeliveryFixture fixture = new DeliveryFixture(servers);
                RedisServer redis = RedisServer.start(dir.resolve("redis"))) {
            TestNames names = fixture.names;
            String target = fixture.target;
            KafkaClient kafka = fixture.kafka;
            KafkaClient.Collector delivered = fixture.collectTarget();
            TestBridge bridge = new TestBridge(names, servers.kafkaBootstrap(), redis.uri()).start();
            try {
                kafka.send(names.intake(), "k1", "v1", null, DelayHeaders.TARGET, target, DelayHeaders.DELAY_MS, "0");
                await().atMost(Duration.ofSeconds(30)).until(() -> delivered.size() == 1);

                redis.kill();
                deleteDataFiles(redis.dataDir());
                redis.restart();
                kafka.send(names.intake(), "k2", "v2", null, DelayHeaders.TARGET, target, DelayHeaders.DELAY_MS, "0");

                await().atMost(Duration.ofSeconds(60))
                        .until(() -> !pipeline(bridge).isHealthy());
                assertTrue(
                        pipeline(bridge).getMessage().contains("Redis lost the data"),
                        pipeline(bridge).getMessage());
                assertEquals(1, delivered.size(), "the record read after the loss was neither stored nor delivered");
            } finally {
                bridge.stop();
            }
        }
    }

    private static HealthCheck.Result pipeline(TestBridge bridge) {
        return bridge.support().getEnvironment().healthChecks().runHealthCheck("pipeline");
    }

    private static long pending(TestBridge bridge) {
        Object gauge = bridge.support()
                .getEnvironment()
                .metrics()
                .getGauges()
                .get("delay.pending")
                .getValue();
        return ((Number) gauge).longValue();
    }

    private static void deleteDataFiles(Path redisDir) throws Exception {
        try (Stream<Path> files = Files.walk(redisDir)) {
            for (Path file : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                String name = file.getFileName().toString();
                if (name.startsWith("appendonly")
                        || name.endsWith(".aof")
                        || name.endsWith(".rdb")
                        || name.endsWith(".manifest")) {
                    Files.delete(file);
                }
            }
        }
    }
}

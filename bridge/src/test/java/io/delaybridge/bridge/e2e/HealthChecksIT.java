package io.delaybridge.bridge.e2e;

import static io.delaybridge.bridge.e2e.Http.BEARER;
import static io.delaybridge.bridge.e2e.Http.call;
import static io.delaybridge.bridge.e2e.Http.get;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.delaybridge.bridge.store.redis.RedisKeys;
import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.TestServers;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The health checks turn unhealthy for the reasons they name: a pump that lags (here: paused), lost Redis data, every
 * send failing.
 */
@ExtendWith(RealServersExtension.class)
class HealthChecksIT {

    @Test
    void pumpLagAndALostIncarnationMakeTheBridgeUnhealthy(TestServers servers) {
        TestNames names = TestNames.unique(servers);
        String target = names.target("health");
        try (KafkaClient kafka = new KafkaClient(servers.kafkaBootstrap());
                TestBridge bridge = new TestBridge(
                                names,
                                servers.kafkaBootstrap(),
                                servers.redisUri(),
                                TestBridge.set("api.token", Http.TOKEN),
                                TestBridge.set("api.maxPumpLag", "1s"))
                        .start()) {
            kafka.createTopics(1, target);
            KafkaClient.Collector delivered = kafka.collect(target);
            int admin = bridge.adminPort();
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> get(admin, "/healthcheck").status() == 200);

            assertEquals(
                    200, call("POST", admin, "/tasks/pause-pump", null, BEARER).status());
            kafka.send(names.intake(), "lagging", "v", null, DelayHeaders.TARGET, target, DelayHeaders.DELAY_MS, "0");
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> !check(admin, "pump-lag").get("healthy").asBoolean());
            assertEquals(500, get(admin, "/healthcheck").status(), "an unhealthy check fails the endpoint");
            assertTrue(check(admin, "pump-lag").get("message").asText().contains("paused"));
            assertEquals(
                    200, call("POST", admin, "/tasks/resume-pump", null, BEARER).status());
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> delivered.size() == 1
                            && check(admin, "pump-lag").get("healthy").asBoolean());

            RedisClient client = RedisClient.create(servers.redisUri());
            try (StatefulRedisConnection<byte[], byte[]> redis = client.connect(ByteArrayCodec.INSTANCE)) {
                redis.sync().del(RedisKeys.metaKey(names.keyPrefix(), names.intake()));
            } finally {
                client.shutdown();
            }
            JsonNode lost = check(admin, "redis-incarnation");
            assertTrue(
                    !lost.get("healthy").asBoolean()
                            && lost.get("message").asText().contains("lost"),
                    lost.toString());
        }
    }

    /**
     * A bridge whose producer cannot load its compression codec (as in a container whose /tmp is mounted noexec) fails
     * every send and retries it: nothing is ever overdue, so {@code pump-lag} stays healthy, and {@code delivery}
     * turns unhealthy.
     */
    @Test
    void everySendFailingMakesDeliveryUnhealthy(TestServers servers, @TempDir Path dir) {
        TestNames names = TestNames.unique(servers);
        String target = names.target("nocodec");
        try (KafkaClient kafka = new KafkaClient(servers.kafkaBootstrap());
                ChildBridge bridge = ChildBridge.start(
                        dir,
                        names,
                        servers.kafkaBootstrap(),
                        servers.redisUri(),
                        "nocodec",
                        // snappy unpacks its native library into this directory, which cannot be made
                        Map.of("JAVA_TOOL_OPTIONS", "-Dorg.xerial.snappy.tempdir=/dev/null/snappy"))) {
            kafka.createTopics(1, target);
            int admin = bridge.adminPort();
            assertTrue(check(admin, "delivery").get("healthy").asBoolean(), "nothing sent yet");
            for (int i = 0; i < 20; i++) {
                kafka.send(names.intake(), "k" + i, "v", null, DelayHeaders.TARGET, target, DelayHeaders.DELAY_MS, "0");
            }
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> !check(admin, "delivery").get("healthy").asBoolean());
            JsonNode delivery = check(admin, "delivery");
            assertTrue(delivery.get("message").asText().contains("every send failed"), delivery.toString());
            assertEquals(0, bridge.meter("delay.delivered"), "the codec never loaded: nothing was delivered");
        }
    }

    private static JsonNode check(int admin, String name) {
        return get(admin, "/healthcheck").json().get(name);
    }
}

package io.delaybridge.bridge.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.delaybridge.bridge.store.redis.RedisDelayStore;
import io.delaybridge.bridge.store.redis.RedisStoreOptions;
import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.TestServers;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The intake's choice of tier, end to end: with {@code intake.hotWindow} on and the intake topic keeping records by
 * time (the broker's 7 days), a record due beyond the window is written to the far tier, an index entry without its
 * payload, while one due within the window is stored hot as before.
 */
@ExtendWith(RealServersExtension.class)
class FarIntakeIT {

    private static final int PARTITIONS = 4; // test-bridge.yml

    @Test
    void aRecordDueBeyondTheHotWindowIsWrittenFarWithoutItsPayload(TestServers servers) {
        TestNames names = TestNames.unique(servers);
        String target = names.target("later");
        try (KafkaClient kafka = new KafkaClient(servers.kafkaBootstrap());
                TestBridge bridge = new TestBridge(
                                names,
                                servers.kafkaBootstrap(),
                                servers.redisUri(),
                                TestBridge.set("intake.hotWindow", "1m"))
                        .start();
                RedisDelayStore store =
                        RedisDelayStore.connect(RedisStoreOptions.of(servers.redisUri(), names.intake(), PARTITIONS)
                                .withKeyPrefix(names.keyPrefix()));
                RedisClient redis = RedisClient.create(servers.redisUri());
                StatefulRedisConnection<byte[], byte[]> connection = redis.connect(ByteArrayCodec.INSTANCE)) {
            kafka.createTopics(1, target);
            // the retention watch reads the intake's retention on a thread of its own, after start: wait for it
            await().atMost(Duration.ofSeconds(30))
                    .untilAsserted(() -> assertTrue(
                            bridge.admin("/healthcheck")
                                    .get("far-tier")
                                    .get("message")
                                    .asText()
                                    .startsWith("on: "),
                            "the far tier is on"));
            bridge.awaitMetric("/gauges/delay.far.enabled/value", 1);

            kafka.send(
                    names.intake(),
                    "far-1",
                    "the payload that stays in the intake",
                    null,
                    DelayHeaders.TARGET,
                    target,
                    DelayHeaders.DELAY_MS,
                    "2h");
            kafka.send(
                    names.intake(),
                    "hot-1",
                    "within the window",
                    null,
                    DelayHeaders.TARGET,
                    target,
                    DelayHeaders.DELAY_MS,
                    "30s");

            await().atMost(Duration.ofSeconds(60)).until(() -> far(store) == 1 && pending(store) == 1);
            long payloads = 0;
            for (int shard = 0; shard < PARTITIONS; shard++) {
                payloads += connection.sync().hlen(store.keys().shard(shard).msg());
            }
            assertEquals(1, payloads, "only the hot record's payload is in Redis");
            await().atMost(Duration.ofSeconds(10)) // counted once the poll's write completed
                    .until(() -> metrics(bridge)
                                    .get("meters")
                                    .get("delay.intake.far")
                                    .get("count")
                                    .asLong()
                            == 1);
        }
    }

    private static long far(RedisDelayStore store) {
        long count = 0;
        for (int shard = 0; shard < PARTITIONS; shard++) {
            count += store.far().farCount(shard);
        }
        return count;
    }

    private static long pending(RedisDelayStore store) {
        long count = 0;
        for (int shard = 0; shard < PARTITIONS; shard++) {
            count += store.stats(shard).pending();
        }
        return count;
    }

    private static JsonNode metrics(TestBridge bridge) {
        return bridge.admin("/metrics");
    }
}

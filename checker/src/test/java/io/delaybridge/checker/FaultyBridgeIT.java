package io.delaybridge.checker;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Only the campaign's main class arms the fault settings: with {@code DELAY_TEST_CLOCK_SHIFT=+1h} and a crash point in
 * the environment of both, a {@link FaultyBridge} runs an hour ahead (its {@code clock-skew} check, which compares its
 * clock with Redis', says so), and the product's own main class, beside it in the same group, keeps the host's clock.
 */
class FaultyBridgeIT {

    private static final Duration START = Duration.ofSeconds(120);

    @TempDir
    Path dir;

    @Test
    void theCampaignsBridgeShiftsItsClockAndTheProductIgnoresTheSetting() throws Exception {
        CampaignOptions options = CampaignOptions.parse(new String[] {"--partitions", "2"});
        try (CampaignKafka broker = CampaignKafka.start(1, dir.resolve("kafka"));
                CampaignRedis redis =
                        CampaignRedis.start(CampaignOptions.RedisTopology.STANDALONE, dir.resolve("redis"))) {
            Path config = BridgeConfig.write(options, dir, broker.replicationFactor());
            Map<String, String> env = Map.of(
                    "KAFKA_BOOTSTRAP_SERVERS", broker.bootstrapServers(),
                    "REDIS_URI", redis.uri(),
                    "DELAY_TEST_CLOCK_SHIFT", "+1h",
                    // a point the idle bridges never reach: armed, it must not stop either from starting
                    "DELAY_CRASH_POINT", CrashPoint.AFTER_SEND_BEFORE_ACK.settingName());
            BridgeProcess faulty = BridgeProcess.start(
                    "faulty", "member-1", config, dir, env, null, 0, null, CampaignOptions.ClockShiftMode.JAVA);
            BridgeProcess product = BridgeProcess.start(
                    "io.delaybridge.bridge.DelayBridgeApplication",
                    "product",
                    "member-2",
                    config,
                    dir,
                    env,
                    null,
                    0,
                    null,
                    CampaignOptions.ClockShiftMode.JAVA);
            try {
                faulty.awaitHealthy(START);
                product.awaitHealthy(START);
                JsonNode shifted = faulty.healthCheck("clock-skew");
                assertFalse(
                        shifted.path("healthy").asBoolean(true), "the campaign's bridge is an hour ahead: " + shifted);
                assertTrue(shifted.path("message").asText().contains("clock skew -3"), shifted.toString());
                JsonNode own = product.healthCheck("clock-skew");
                assertTrue(own.path("healthy").asBoolean(), "the product keeps the host's clock: " + own);
            } finally {
                faulty.kill();
                product.kill();
            }
        }
    }
}

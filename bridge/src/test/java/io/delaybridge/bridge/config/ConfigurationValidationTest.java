package io.delaybridge.bridge.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.bridge.DelayBridgeConfiguration;
import io.dropwizard.configuration.ConfigurationValidationException;
import io.dropwizard.configuration.EnvironmentVariableSubstitutor;
import io.dropwizard.configuration.FileConfigurationSourceProvider;
import io.dropwizard.configuration.SubstitutingSourceProvider;
import io.dropwizard.configuration.YamlConfigurationFactory;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.jersey.validation.Validators;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** A bad setting stops start-up with a message naming the key, the value and the fix. */
class ConfigurationValidationTest {

    private final YamlConfigurationFactory<DelayBridgeConfiguration> factory = new YamlConfigurationFactory<>(
            DelayBridgeConfiguration.class, Validators.newValidator(), Jackson.newObjectMapper(), "dw");

    @TempDir
    Path dir;

    @Test
    void theShippedConfigurationIsValidAndReadsTheEnvironmentWithDefaults() throws Exception {
        DelayBridgeConfiguration config = factory.build(
                new SubstitutingSourceProvider(
                        new FileConfigurationSourceProvider(), new EnvironmentVariableSubstitutor(false)),
                Path.of("config.yml").toString());
        String expectedKafka = System.getenv().getOrDefault("KAFKA_BOOTSTRAP_SERVERS", "localhost:9092");
        assertEquals(expectedKafka, config.getKafka().getBootstrapServers());
        assertEquals("delay-intake", config.getKafka().getIntakeTopic());
        assertEquals(16, config.getKafka().getIntakePartitions());
        assertEquals(10, config.getPump().getMaxAttempts());
        String expectedInstance = System.getenv("DELAY_INSTANCE_ID");
        if (expectedInstance == null || expectedInstance.isEmpty()) {
            assertFalse(config.getKafka().resolvedInstanceId().isBlank(), "the host name stands in");
        } else {
            assertEquals(expectedInstance, config.getKafka().resolvedInstanceId());
        }
        assertEquals(365L * 24 * 3600 * 1000, config.getIntake().build("i", "d").maxDelayMillis());
        assertEquals(
                java.time.Duration.ofMillis(100),
                config.getIntake().build("i", "d").commitInterval());
        String expectedCap = System.getenv().getOrDefault("DELAY_RATE_LIMIT", "0");
        assertEquals(
                Double.parseDouble(expectedCap.isEmpty() ? "0" : expectedCap),
                config.getPump().getRateLimits().getDefault(),
                "pump.rateLimits.default reads DELAY_RATE_LIMIT");
        assertTrue(config.getPump().getRateLimits().getTargets().isEmpty());
        if (System.getenv("REDIS_TLS_CA_FILE") == null && System.getenv("REDIS_TLS_VERIFY_PEER") == null) {
            io.delaybridge.bridge.store.redis.RedisTls tls =
                    config.getRedis().getTls().build();
            assertFalse(tls.configured(), "no TLS files unless REDIS_TLS_* say so");
            assertEquals(io.delaybridge.bridge.store.redis.RedisTls.Verify.FULL, tls.verify());
        }
    }

    static Stream<Arguments> badSettings() {
        return Stream.of(
                Arguments.of("kafka: {intakePartitions: 0}", "kafka.intakePartitions is 0", "use 1 to 10000"),
                Arguments.of(
                        "kafka: {bootstrapServers: ''}", "kafka.bootstrapServers is empty", "KAFKA_BOOTSTRAP_SERVERS"),
                Arguments.of(
                        "kafka: {intakeTopic: 'has space'}",
                        "kafka.intakeTopic is \"has space\"",
                        "legal Kafka topic name"),
                Arguments.of(
                        "kafka: {deadletterTopic: delay-intake}",
                        "kafka.deadletterTopic is \"delay-intake\", the same as kafka.intakeTopic",
                        "Set kafka.deadletterTopic to another topic"),
                Arguments.of("kafka: {replicationFactor: 0}", "kafka.replicationFactor is 0", "use -1"),
                Arguments.of("pump: {missingTopicWait: 1h}", "pump.missingTopicWait is 1 hour", "use 0s to 10m"),
                Arguments.of(
                        "pump: {rateLimits: {scope: cluster}}",
                        "pump.rateLimits.scope is \"cluster\"",
                        "use service (a cap holds for all instances together) or instance"),
                Arguments.of(
                        "kafka: {instanceId: 'two words'}",
                        "kafka.instanceId is \"two words\"",
                        "leave it empty for the host name"),
                Arguments.of(
                        "kafka: {consumer: {group.instance.id: other}}",
                        "kafka.consumer sets [group.instance.id]",
                        "the member id kafka.instanceId"),
                Arguments.of(
                        "kafka: {consumer: {enable.auto.commit: 'true'}}",
                        "kafka.consumer sets [enable.auto.commit]",
                        "Remove them from kafka.consumer"),
                Arguments.of(
                        "kafka: {producer: {acks: '1'}}",
                        "kafka.producer sets [acks]",
                        "Remove them from kafka.producer"),
                Arguments.of(
                        "redis: {uri: 'http://user:secret@host'}",
                        "redis.uri is \"http://***@host\"",
                        "Use redis://host:6379"),
                Arguments.of(
                        "redis: {uri: 'redis://h:7000', mode: sentinel}",
                        "redis.mode is sentinel but uri is not",
                        "redis-sentinel://host:26379"),
                Arguments.of(
                        "redis: {uri: 'redis-sentinel://h:26379#m', mode: cluster}",
                        "redis.mode is cluster but uri names sentinels",
                        "set mode to sentinel or auto"),
                Arguments.of("redis: {keyPrefix: 'a{b}'}", "redis.keyPrefix is \"a{b}\"", "no braces"),
                Arguments.of(
                        "redis: {uri: 'rediss://h:6380', tls: {caFile: /no/such/ca.pem}}",
                        "redis.tls.caFile is \"/no/such/ca.pem\": no readable file",
                        "Check the path"),
                Arguments.of(
                        "redis: {uri: 'rediss://h:6380', tls: {certificateFile: config.yml}}",
                        "redis.tls.keyFile is empty but certificateFile is set",
                        "REDIS_TLS_KEY_FILE"),
                Arguments.of(
                        "redis: {uri: 'rediss://h:6380', tls: {caFile: config.yml, trustStore: config.yml}}",
                        "redis.tls.trustStore is set beside caFile",
                        "not both"),
                Arguments.of(
                        "redis: {uri: 'redis://:pw@h:6379', tls: {caFile: config.yml}}",
                        "redis.tls names certificate files but uri is \"redis://***@h:6379\"",
                        "use rediss://"),
                Arguments.of(
                        "redis: {waitReplicas: 20}",
                        "redis.waitReplicas is 20",
                        "use 0 to 16, e.g. 0 (0 relies on the primary's AOF)"),
                Arguments.of(
                        "intake: {maxRecordSize: 100MiB}",
                        "intake.maxRecordSize is 100 mebibytes",
                        "use 1 byte to 64MiB"),
                Arguments.of(
                        "intake: {allowedTargets: ['orders.(']}",
                        "intake.allowedTargets holds \"orders.(\", which is not a regular expression",
                        "full-match patterns"),
                Arguments.of(
                        "intake: {commitInterval: 1 minute}", "intake.commitInterval is 1 minute", "use 0ms to 10s"),
                Arguments.of(
                        "intake: {retryBackoff: 10s, maxRetryBackoff: 1s}",
                        "intake.maxRetryBackoff is 1 second, shorter than intake.retryBackoff (10 seconds)",
                        "raise intake.maxRetryBackoff"),
                Arguments.of(
                        "intake: {hotWindow: soon}",
                        "intake.hotWindow is \"soon\", which is not a duration of 0ms or more nor off",
                        "write e.g. 10m, or off to store every record in Redis"),
                Arguments.of(
                        "intake: {hotWindow: -5m}",
                        "intake.hotWindow is \"-5m\"",
                        "write e.g. 10m, or off to store every record in Redis"),
                Arguments.of(
                        "intake: {retentionCheckInterval: 2h}",
                        "intake.retentionCheckInterval is 2 hours",
                        "use 1s to 1h"),
                Arguments.of(
                        "intake: {retentionCheckInterval: 10ms}",
                        "intake.retentionCheckInterval is 10 milliseconds",
                        "use 1s to 1h"),
                Arguments.of("pump: {batchSize: 20000}", "pump.batchSize is 20000", "use 1 to 10000"),
                Arguments.of("pump: {lease: 10ms}", "pump.lease is 10 milliseconds", "use at least 1s"),
                Arguments.of("pump: {maxAttempts: 0}", "pump.maxAttempts is 0", "use 1 to 1000"),
                Arguments.of("pump: {lookAhead: 2s}", "pump.lookAhead is 2 seconds", "use 0ms to 1s"),
                Arguments.of(
                        "pump: {lease: 1s, lookAhead: 600ms}",
                        "pump.lookAhead is 600 milliseconds, more than half of pump.lease (1 second)",
                        "Lower pump.lookAhead"),
                Arguments.of(
                        "pump: {rateLimits: {default: -5}}",
                        "pump.rateLimits.default is -5",
                        "use records per second per target topic, 0 to 1000000 (0: no cap)"),
                Arguments.of(
                        "pump: {rateLimits: {targets: {orders.timeout: 2000000}}}",
                        "pump.rateLimits.targets.orders.timeout is 2000000",
                        "(0 exempts orders.timeout from the default), e.g. orders.timeout: 500"),
                Arguments.of(
                        "pump: {rateLimits: {targets: {'has space': 10}}}",
                        "pump.rateLimits.targets names \"has space\", which is not a legal Kafka topic name",
                        "write the target topic as it is"),
                Arguments.of(
                        "pump: {weights: {orders.timeout: 0}}",
                        "pump.weights.orders.timeout is 0",
                        "use a whole number from 1 to 1000 (1: an equal share), e.g. orders.timeout: 3"),
                Arguments.of(
                        "pump: {weights: {'has space': 2}}",
                        "pump.weights names \"has space\", which is not a legal Kafka topic name",
                        "write the target topic as it is"),
                Arguments.of(
                        "pump: {batchSize: 600, maxInFlight: 500}",
                        "pump.maxInFlight is 500, below pump.batchSize (600)",
                        "Raise pump.maxInFlight"));
    }

    @ParameterizedTest
    @MethodSource("badSettings")
    void aBadSettingIsNamedWithItsValueAndTheFix(String yaml, String keyAndValue, String fix) throws Exception {
        String message = failure(yaml);
        assertTrue(message.contains(keyAndValue), () -> "expected <" + keyAndValue + "> in:\n" + message);
        assertTrue(message.contains(fix), () -> "expected the fix <" + fix + "> in:\n" + message);
    }

    @Test
    void anExpressWindowOfOffTurnsTheExpressPathOffQuotedOrNot() throws Exception {
        for (String value : java.util.List.of("off", "'off'", "OFF", "-1ms")) {
            Path file = dir.resolve("window.yml");
            Files.writeString(file, "intake:\n  expressWindow: " + value + "\n"); // bare off is YAML's false
            long window = factory.build(new FileConfigurationSourceProvider(), file.toString())
                    .getIntake()
                    .build("i", "d")
                    .expressWindowMillis();
            assertEquals(-1, window, value);
        }
        Path file = dir.resolve("window.yml");
        Files.writeString(file, "intake:\n  expressWindow: 1s\n");
        assertEquals(
                1_000,
                factory.build(new FileConfigurationSourceProvider(), file.toString())
                        .getIntake()
                        .build("i", "d")
                        .expressWindowMillis());
    }

    @Test
    void aHotWindowOfOffKeepsEveryRecordHotQuotedOrNot() throws Exception {
        for (String value : java.util.List.of("off", "'off'", "OFF")) {
            assertEquals(-1, intake("intake:\n  hotWindow: " + value + "\n").hotWindowMillis(), value);
        }
        assertEquals(0, intake("intake:\n  hotWindow: 0ms\n").hotWindowMillis(), "0ms: every record not due is far");
        io.delaybridge.bridge.intake.IntakeSettings defaults = intake("intake: {}\n");
        assertEquals(3_600_000, defaults.hotWindowMillis());
        assertEquals(3_600_000, defaults.farRetentionMarginMillis());
        assertEquals(java.time.Duration.ofMinutes(5), defaults.retentionCheckInterval());
        io.delaybridge.bridge.intake.IntakeSettings set =
                intake("intake: {hotWindow: 2h, farRetentionMargin: 1d, retentionCheckInterval: 30s}\n");
        assertEquals(7_200_000, set.hotWindowMillis());
        assertEquals(86_400_000, set.farRetentionMarginMillis());
        assertEquals(java.time.Duration.ofSeconds(30), set.retentionCheckInterval());
    }

    private io.delaybridge.bridge.intake.IntakeSettings intake(String yaml) throws Exception {
        Path file = dir.resolve("intake.yml");
        Files.writeString(file, yaml);
        return factory.build(new FileConfigurationSourceProvider(), file.toString())
                .getIntake()
                .build("i", "d");
    }

    @Test
    void rateCapsParseAsRecordsPerSecondPerTargetAndZeroExemptsATopic() throws Exception {
        Path file = dir.resolve("caps.yml");
        Files.writeString(
                file,
                "pump:\n  rateLimits:\n    default: 50\n    scope: instance\n    targets:\n"
                        + "      orders.timeout: 500\n      audit: 0\n      slow: 0.5\n");
        io.delaybridge.bridge.delivery.TargetRates rates = factory.build(
                        new FileConfigurationSourceProvider(), file.toString())
                .getPump()
                .rates(new com.codahale.metrics.MetricRegistry(), NOT_SHARED);
        assertEquals(500, rates.capOf("orders.timeout"));
        assertEquals(0.5, rates.capOf("slow"));
        assertFalse(rates.capped("audit"), "0 exempts a topic from the default");
        assertEquals(50, rates.capOf("anything.else"), "the default for the rest");
        assertTrue(rates.target("orders.timeout").capped());
        assertEquals(500, rates.target("orders.timeout").bucket().perSecond());
        assertEquals(
                50,
                ((io.delaybridge.bridge.delivery.TokenBucket)
                                rates.target("orders.timeout").bucket())
                        .burst(),
                "scope: instance, a bucket of its own with a tenth of a second's worth of burst");
    }

    /** Shared rates a per-instance cap must never call. */
    private static final io.delaybridge.bridge.store.SharedRates NOT_SHARED = (target, perSecond, burst, want) -> {
        throw new AssertionError("a per-instance cap asked the store for tokens of " + target);
    };

    @Test
    void aCapHoldsForTheServiceByDefaultTakingItsTokensFromTheStore() throws Exception {
        Path file = dir.resolve("shared.yml");
        Files.writeString(file, "pump: {rateLimits: {targets: {orders: 200}}}\n");
        java.util.List<String> asked = new java.util.ArrayList<>();
        io.delaybridge.bridge.delivery.TargetRates rates = factory.build(
                        new FileConfigurationSourceProvider(), file.toString())
                .getPump()
                .rates(new com.codahale.metrics.MetricRegistry(), (target, perSecond, burst, want) -> {
                    asked.add(target + " " + perSecond + "/s burst " + burst + " want " + want);
                    return java.util.concurrent.CompletableFuture.completedFuture(
                            new io.delaybridge.bridge.store.SharedRates.Grant(want, 0));
                });
        io.delaybridge.bridge.delivery.Bucket bucket = rates.target("orders").bucket();
        assertTrue(bucket instanceof io.delaybridge.bridge.delivery.SharedBucket, "" + bucket);
        assertFalse(bucket.tryTake(0), "no token before the store granted some");
        assertEquals(java.util.List.of("orders 200.0/s burst 10 want 10"), asked, "a twentieth of a second's worth");
        assertTrue(bucket.tryTake(1), "granted by the store");
    }

    @Test
    void aCapThatIsNoNumberStopsStartUpNamingTheKey() throws Exception {
        Path file = dir.resolve("fast.yml");
        Files.writeString(file, "pump: {rateLimits: {targets: {orders: fast}}}");
        String message = assertThrows(
                        io.dropwizard.configuration.ConfigurationParsingException.class,
                        () -> factory.build(new FileConfigurationSourceProvider(), file.toString()))
                .getMessage();
        assertTrue(message.contains("pump.rateLimits.targets.orders") && message.contains("expected: Double"), message);
    }

    @Test
    void noRateCapsByDefault() throws Exception {
        Path file = dir.resolve("none.yml");
        Files.writeString(file, "pump: {}\n");
        io.delaybridge.bridge.delivery.TargetRates rates = factory.build(
                        new FileConfigurationSourceProvider(), file.toString())
                .getPump()
                .rates(new com.codahale.metrics.MetricRegistry(), NOT_SHARED);
        assertFalse(rates.anyCap());
        assertFalse(rates.target("orders").capped());
    }

    @Test
    void aPasswordInTheRedisUriNeverAppearsInTheError() throws Exception {
        assertFalse(failure("redis: {uri: 'tcp://admin:hunter2@redis:6379'}").contains("hunter2"));
    }

    @Test
    void everyProblemIsReportedAtOnceNotOneAtATime() throws Exception {
        String message = failure("kafka: {intakePartitions: 0}\npump: {batchSize: 0}\nredis: {waitReplicas: -1}");
        assertTrue(
                message.contains("kafka.intakePartitions")
                        && message.contains("pump.batchSize")
                        && message.contains("redis.waitReplicas"),
                message);
    }

    private String failure(String yaml) throws Exception {
        Path file = dir.resolve("bad.yml");
        Files.writeString(file, yaml);
        return assertThrows(
                        ConfigurationValidationException.class,
                        () -> factory.build(new FileConfigurationSourceProvider(), file.toString()))
                .getMessage();
    }
}

package io.delaybridge.bridge.e2e;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.testkit.ChildJvm;
import io.delaybridge.testkit.FreePorts;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.TestServers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shipped jar started as README and the image start it ({@code @jvm.options}, {@code server config.yml}, the
 * settings from the environment) logs nothing at WARN or above on a clean start, up to its first delivery: a warning
 * on every start (such as logback-access finding another logback-core than it was built for) teaches operators to
 * ignore warnings.
 */
@ExtendWith(RealServersExtension.class)
class CleanStartIT {

    private static final Path JAR = Path.of("target", "delay-bridge.jar");

    @Test
    void theShippedJarAndConfigurationStartWithoutAWarning(TestServers servers, @TempDir Path dir) throws Exception {
        TestNames names = TestNames.unique(servers);
        String target = names.target("clean");
        Path log = dir.resolve("bridge.log");
        try (KafkaClient kafka = new KafkaClient(servers.kafkaBootstrap())) {
            kafka.createTopics(1, target);
            KafkaClient.Collector delivered = kafka.collect(target);
            ChildJvm bridge = ChildJvm.jar("clean-start", JAR)
                    .jvmOptions(List.of("@jvm.options"))
                    .args("server", "config.yml")
                    .env(Map.of(
                            "KAFKA_BOOTSTRAP_SERVERS", servers.kafkaBootstrap(),
                            "REDIS_URI", servers.redisUri(),
                            "DELAY_INTAKE_TOPIC", names.intake(),
                            "DELAY_DEADLETTER_TOPIC", names.deadletter(),
                            "DELAY_GROUP_ID", names.group(),
                            "DELAY_INSTANCE_ID", names.group() + "-1",
                            "DELAY_KEY_PREFIX", names.keyPrefix(),
                            "DELAY_HTTP_PORT", Integer.toString(FreePorts.pick()),
                            "DELAY_ADMIN_PORT", Integer.toString(FreePorts.pick())))
                    .log(log)
                    .start();
            try {
                bridge.awaitReady(Duration.ofSeconds(90), () -> read(log).contains("Started in "));
                kafka.send(names.intake(), "first", "v", null, DelayHeaders.TARGET, target, DelayHeaders.DELAY_MS, "0");
                bridge.awaitReady(Duration.ofSeconds(60), () -> delivered.size() == 1);
            } finally {
                bridge.close(); // SIGTERM: the orderly stop
            }
        }
        String output = read(log);
        String started = output.substring(0, output.indexOf("Started in "));
        List<String> warnings = started.lines()
                .filter(line -> line.matches(".*\\b(WARN|ERROR)\\b.*"))
                .toList();
        assertTrue(warnings.isEmpty(), "a clean start logged:\n" + String.join("\n", warnings));
        assertTrue(started.contains("INFO"), "the start-up log is missing:\n" + started);
    }

    private static String read(Path log) {
        try {
            return Files.exists(log) ? Files.readString(log) : "";
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}

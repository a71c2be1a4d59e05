package io.delaybridge.bridge.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A bridge configuration file for the rules' tests: {@code test-bridge.yml} with the test's names filled in and a
 * {@code rules:} / {@code ruleEngine:} section appended. Rules are a list, which overrides cannot add.
 */
final class RulesConfig {

    private RulesConfig() {}

    static Path write(Path dir, TestNames names, String kafka, String redis, String rulesYaml) {
        String base;
        try (var in = RulesConfig.class.getResourceAsStream("/test-bridge.yml")) {
            base = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String yaml = base.replace(
                                "bootstrapServers: localhost:9092",
                                "bootstrapServers: " + kafka
                                        + "\n  intakeTopic: " + names.intake()
                                        + "\n  deadletterTopic: " + names.deadletter()
                                        + "\n  groupId: " + names.group())
                        .replace("uri: redis://localhost:6379", "uri: " + redis + "\n  keyPrefix: " + names.keyPrefix())
                + "\nruleEngine:\n  startFrom: earliest\n  stateDir: " + dir.resolve("streams-state") + "\n"
                // a killed instance's group membership and open transaction end sooner than by default
                + "  streams:\n    consumer.session.timeout.ms: '6000'\n    consumer.heartbeat.interval.ms: '1000'\n"
                + "    producer.transaction.timeout.ms: '5000'\n"
                + rulesYaml;
        try {
            Files.createDirectories(dir);
            Path file = dir.resolve(names.group() + ".yml");
            Files.writeString(file, yaml);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

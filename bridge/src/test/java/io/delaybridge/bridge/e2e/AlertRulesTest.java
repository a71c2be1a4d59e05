package io.delaybridge.bridge.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shipped Prometheus alert rules (monitoring/prometheus) are valid and do what their unit tests say: {@code
 * promtool check rules} and {@code promtool test rules}, in the default test run. That the metric names match what
 * the bridge exports is checked against a live bridge in {@code ObservabilityIT}.
 */
class AlertRulesTest {

    static final Path RULES_DIR =
            Path.of("..", "monitoring", "prometheus").toAbsolutePath().normalize();

    @Test
    void theRulesAreValid() throws Exception {
        String out = promtool("check", "rules", "delay-bridge-rules.yml");
        assertTrue(out.contains("SUCCESS"), out);
    }

    @Test
    void theRulesPassTheirUnitTests() throws Exception {
        String out = promtool("test", "rules", "delay-bridge-rules-test.yml");
        assertTrue(out.contains("SUCCESS"), out);
    }

    /** The compose stack's Prometheus configuration, with the rules file mounted beside it as there. */
    @Test
    void theComposeStacksPrometheusConfigurationLoadsTheRules(@TempDir Path dir) throws Exception {
        Files.copy(Path.of("..", "docker", "monitoring", "prometheus.yml"), dir.resolve("prometheus.yml"));
        Files.copy(RULES_DIR.resolve("delay-bridge-rules.yml"), dir.resolve("delay-bridge-rules.yml"));
        String out = run(dir, "check", "config", "prometheus.yml");
        long alerts = Files.readAllLines(RULES_DIR.resolve("delay-bridge-rules.yml")).stream()
                .filter(line -> line.strip().startsWith("- alert:"))
                .count();
        assertTrue(alerts > 0 && out.contains("SUCCESS: " + alerts + " rules found"), out);
    }

    private static String promtool(String... args) throws IOException, InterruptedException {
        return run(RULES_DIR, args);
    }

    private static String run(Path dir, String... args) throws IOException, InterruptedException {
        String promtool = ExternalTool.require(
                "testing the alert rules", "apt-get install -y prometheus (Debian ships promtool in it)", "promtool");
        String[] command = new String[args.length + 1];
        command[0] = promtool;
        System.arraycopy(args, 0, command, 1, args.length);
        Process process = new ProcessBuilder(command)
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "promtool did not finish");
        assertEquals(0, process.exitValue(), "promtool " + String.join(" ", args) + " failed:\n" + out);
        return out;
    }
}

package io.delaybridge.bridge.e2e;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** redis-cli as a user runs it, for the document's checks: its whole output, trimmed. */
final class RedisCli {

    private RedisCli() {}

    static String binary() {
        return ExternalTool.require("the documented Redis checks", "apt-get install -y redis-tools", "redis-cli");
    }

    static String run(List<String> command) {
        try {
            Process process =
                    new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(process.waitFor(30, TimeUnit.SECONDS), "redis-cli did not finish");
            return out.strip();
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + command, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}

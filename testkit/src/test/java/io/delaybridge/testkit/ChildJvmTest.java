package io.delaybridge.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChildJvmTest {

    @Test
    void aCommandRunsAsGivenWithItsArgumentsAfterIt(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("echo.log");
        ChildJvm child = ChildJvm.command("echo", List.of("sh", "-c", "echo \"$0 $1 $GREETING\"", "first"))
                .args("second")
                .env("GREETING", "hello")
                .log(log)
                .start();
        assertTrue(child.awaitExit(Duration.ofSeconds(30)), "the command ended");
        assertEquals(0, child.exitValue());
        assertEquals("first second hello", Files.readString(log).strip(), "no java, no JVM options before it");
    }

    @Test
    void anEmptyCommandIsRefused() {
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> ChildJvm.command("peer", List.of()));
        assertTrue(e.getMessage().contains("peer"), e.getMessage());
    }
}

package io.delaybridge.bridge.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.testkit.ChildJvm;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code java -jar delay-bridge.jar --version} names the version and the commit the jar was built from (the
 * manifest's {@code Implementation-Version}, written by bridge/pom.xml), so a user can say which build runs.
 */
class VersionIT {

    private static final Path JAR = Path.of("target", "delay-bridge.jar");
    private static final Pattern VERSION =
            Pattern.compile("(?m)^(\\d+\\.\\d+\\.\\d+(?:-SNAPSHOT)?) \\(commit (\\S+)\\)$");

    @Test
    void versionPrintsTheVersionAndTheCommit() throws Exception {
        Path log = Files.createTempFile("version-", ".log");
        ChildJvm jvm = ChildJvm.jar("version", JAR).args("--version").log(log).start();
        assertTrue(jvm.awaitExit(Duration.ofSeconds(60)), "still running: " + jvm.logTail(20));
        assertEquals(0, jvm.exitValue(), jvm.logTail(20));
        String output = Files.readString(log);
        Matcher version = VERSION.matcher(output);
        assertTrue(version.find(), "no version and commit in:\n" + output);
        assertEquals(System.getProperty("project.version"), version.group(1));
        assertEquals(headCommit(), version.group(2), output);
    }

    /**
     * Only the bridge's package carries the version: in the manifest's main section every shaded library would report
     * it as its own, and Lettuce, which sends its version to Redis, refuses one with spaces and the bridge would not
     * start.
     */
    @Test
    void theVersionBelongsToTheBridgesPackageOnly() throws Exception {
        try (JarFile jar = new JarFile(JAR.toFile())) {
            Manifest manifest = jar.getManifest();
            assertNull(manifest.getMainAttributes().getValue("Implementation-Version"), "in the main section");
            Attributes bridge = manifest.getAttributes("io/delaybridge/bridge/");
            assertNotNull(bridge, "no section for the bridge's package");
            assertTrue(
                    VERSION.matcher(bridge.getValue("Implementation-Version")).find(), bridge.toString());
        }
    }

    /** The checkout's commit as the build reads it, or "unknown" outside a git checkout. */
    static String headCommit() throws Exception {
        try {
            Process git = new ProcessBuilder(List.of("git", "rev-parse", "--short=12", "HEAD"))
                    .redirectErrorStream(true)
                    .start();
            String out = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            assertTrue(git.waitFor(30, TimeUnit.SECONDS));
            String fromEnvironment = System.getenv("DELAY_COMMIT");
            if (fromEnvironment != null && !fromEnvironment.isEmpty()) {
                return fromEnvironment;
            }
            return git.exitValue() == 0 ? out : "unknown";
        } catch (java.io.IOException noGit) {
            return "unknown";
        }
    }
}

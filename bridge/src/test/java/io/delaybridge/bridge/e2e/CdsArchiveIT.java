package io.delaybridge.bridge.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.delaybridge.testkit.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The class-data-sharing archive the build makes beside the fat jar (bridge/pom.xml, {@code -Dcds.skip} skips it and
 * this test) is one the JVM maps: with {@code -Xshare:on} a JVM that cannot use it refuses to start, and the bridge's
 * own classes come from it.
 */
class CdsArchiveIT {

    private static final Path JAR = Path.of("target", "delay-bridge.jar");
    private static final Path ARCHIVE = Path.of("target", "delay-bridge.jsa");

    @Test
    void theFatJarStartsWithItsArchiveAndTakesTheBridgesClassesFromIt() throws Exception {
        assumeTrue(!Boolean.getBoolean("cds.skip"), "built with -Dcds.skip: no archive");
        assertTrue(
                Files.isRegularFile(ARCHIVE)
                        && Files.getLastModifiedTime(ARCHIVE).compareTo(Files.getLastModifiedTime(JAR)) >= 0,
                "the build made no archive of this jar: " + ARCHIVE);
        Path log = Files.createTempFile("cds-archive-", ".log");
        ChildJvm jvm = ChildJvm.jar("cds-check", JAR)
                .jvmOptions(List.of(
                        "-Xshare:on", "-Xlog:class+load=info", "-XX:SharedArchiveFile=" + ARCHIVE.toAbsolutePath()))
                .args("--version")
                .log(log)
                .start();
        assertTrue(jvm.awaitExit(Duration.ofSeconds(60)), "still running: " + jvm.logTail(20));
        String output = Files.readString(log);
        assertEquals(0, jvm.exitValue(), "the JVM refused the archive:\n" + jvm.logTail(20));
        assertTrue(
                output.contains("io.delaybridge.bridge.DelayBridgeApplication source: shared objects file"),
                "the bridge's main class was not taken from the archive:\n" + jvm.logTail(20));
    }
}

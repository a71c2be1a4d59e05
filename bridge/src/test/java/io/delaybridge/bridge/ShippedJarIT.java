package io.delaybridge.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;

/**
 * The product ships no test code: the fat jar the build made ({@code package}, before this test) holds none of the
 * fault campaign's crash points and clock shift, which live in the checker, and none of the test's Lua scripts. A
 * bridge started from it has no way to halt itself or shift its clock, whatever its environment says.
 */
class ShippedJarIT {

    private static final Path JAR = Path.of("target", "delay-bridge.jar");

    /** Parts of the names of our entries that are test code. */
    private static final List<String> TEST_ENTRIES = List.of(
            "io/delaybridge/bridge/faults/",
            "io/delaybridge/checker/",
            "io/delaybridge/testkit/",
            "/CrashPoint",
            "/Crashes",
            "/ClockShift",
            "/FaultyBridge",
            "far_append.lua");

    /** Strings that only code arming a fault would hold: its settings and the test's script. */
    private static final List<String> TEST_STRINGS = List.of(
            "DELAY_CRASH_POINT",
            "DELAY_CRASH_AFTER",
            "DELAY_TEST_CLOCK_SHIFT",
            "delay.crash.point",
            "delay.test.clock.shift",
            "far_append");

    @Test
    void theFatJarHoldsNoFaultInjectionAndNoTestScript() throws IOException {
        assertTrue(Files.isRegularFile(JAR), "no " + JAR.toAbsolutePath() + ": run the build's package phase first");
        Set<String> names = new TreeSet<>();
        List<String> found = new ArrayList<>();
        try (JarFile jar = new JarFile(JAR.toFile())) {
            for (JarEntry entry : jar.stream().toList()) {
                String name = entry.getName();
                names.add(name);
                if (!name.startsWith("io/delaybridge/")) {
                    continue; // the libraries' own entries
                }
                TEST_ENTRIES.stream()
                        .filter(name::contains)
                        .forEach(part -> found.add(name + " (its name has " + part + ")"));
                if (!entry.isDirectory()) {
                    String text = latin1(jar, entry); // a class file's strings are in its constant pool as they are
                    TEST_STRINGS.stream()
                            .filter(text::contains)
                            .forEach(string -> found.add(name + " (holds \"" + string + "\")"));
                }
            }
        }
        assertTrue(
                names.contains("io/delaybridge/bridge/DelayBridgeApplication.class")
                        && names.contains("io/delaybridge/bridge/probe/PipelineProbe.class")
                        && names.contains("io/delaybridge/bridge/store/redis/lua/schedule.lua"),
                "the jar is not the bridge's fat jar: " + names.size() + " entries");
        assertEquals(List.of(), found, "test code in the shipped jar " + JAR);
    }

    private static String latin1(JarFile jar, JarEntry entry) throws IOException {
        try (InputStream in = jar.getInputStream(entry)) {
            return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
        }
    }
}

package io.delaybridge.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class TestServersTest {

    private final TestServers servers = new TestServers("127.0.0.1:9092", "redis://127.0.0.1:6379");

    @Test
    void uniqueNamesAreValidTopicNamesWithThePrefix() {
        String name = servers.unique("orders.timeout");
        assertTrue(name.matches("orders\\.timeout-[a-z0-9]{8}"), name);
    }

    @Test
    void uniqueNamesDoNotRepeat() {
        Set<String> names = new HashSet<>();
        for (int i = 0; i < 10_000; i++) {
            names.add(servers.unique("t"));
        }
        assertEquals(10_000, names.size());
    }

    @Test
    void bundledRedisResourceNameMatchesThisPlatform() {
        String suffix = RedisBinary.platformSuffix();
        assertTrue(
                suffix.startsWith("-linux-") || suffix.startsWith("-darwin-") || suffix.startsWith("-windows-"),
                suffix);
    }
}

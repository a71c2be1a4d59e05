package io.delaybridge.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RedisServerIT {

    @TempDir
    Path dataDir;

    @Test
    void setAndGetRoundTrip() throws Exception {
        try (RedisServer redis = RedisServer.start(dataDir)) {
            System.out.printf(
                    "redis-server %s (%s) started in %d ms on %s%n",
                    redis.version(), redis.binary(), redis.lastStartDuration().toMillis(), redis.uri());
            assertTrue(redis.uri().startsWith("redis://127.0.0.1:"));
            assertTrue(redis.version().matches("\\d+\\.\\d+\\.\\d+.*"), redis.version());
            try (Resp resp = Resp.connect(redis.port(), 2000)) {
                assertEquals("OK", resp.call("SET", "greeting", "hello wörld"));
                assertEquals("hello wörld", resp.call("GET", "greeting"));
                assertNull(resp.call("GET", "missing"));
                assertEquals(2L, resp.call("ZADD", "due", "10", "a", "20", "b"));
                assertEquals(List.of("a"), resp.call("ZRANGEBYSCORE", "due", "0", "15"));
                assertEquals("noeviction", ((List<?>) resp.call("CONFIG", "GET", "maxmemory-policy")).get(1));
                assertEquals("always", ((List<?>) resp.call("CONFIG", "GET", "appendfsync")).get(1));
            }
        }
    }

    @Test
    void aofWrittenKeySurvivesKillAndRestart() throws Exception {
        try (RedisServer redis = RedisServer.start(dataDir)) {
            try (Resp resp = Resp.connect(redis.port(), 2000)) {
                assertEquals("OK", resp.call("SET", "durable", "yes"));
                assertEquals(1L, resp.call("HSET", "payloads", "id-1", "bytes"));
            }
            long oldPid = redis.pid();
            int port = redis.port();
            redis.kill();
            assertFalse(redis.isAlive());

            redis.restart();
            System.out.printf(
                    "redis-server restarted after SIGKILL in %d ms%n",
                    redis.lastStartDuration().toMillis());
            assertTrue(redis.isAlive());
            assertNotEquals(oldPid, redis.pid());
            assertEquals(port, redis.port());
            try (Resp resp = Resp.connect(redis.port(), 2000)) {
                assertEquals("yes", resp.call("GET", "durable"));
                assertEquals("bytes", resp.call("HGET", "payloads", "id-1"));
            }
        }
    }

    @Test
    void extraArgumentsAreApplied() throws Exception {
        try (RedisServer redis =
                RedisServer.start(dataDir, 0, List.of("--appendfsync", "everysec", "--requirepass", "s3cret"))) {
            try (Resp resp = Resp.connect(redis.port(), 2000)) {
                Resp.ErrorReply noAuth = assertThrows(Resp.ErrorReply.class, () -> resp.call("GET", "x"));
                assertTrue(noAuth.getMessage().startsWith("NOAUTH"), noAuth.getMessage());
                assertEquals("OK", resp.call("AUTH", "s3cret"));
                assertEquals("everysec", ((List<?>) resp.call("CONFIG", "GET", "appendfsync")).get(1));
            }
            assertTrue(redis.version().length() > 0);
        }
    }

    @Test
    void aStartFailureNamesTheCauseWithTheLogTail() {
        IllegalStateException e = assertThrows(
                IllegalStateException.class, () -> RedisServer.start(dataDir, 0, List.of("--no-such-option", "1")));
        assertTrue(e.getMessage().contains("redis.log"), e.getMessage());
        assertTrue(e.getMessage().toLowerCase().contains("no-such-option"), e.getMessage());
    }

    @Test
    void theBinaryBundledInEmbeddedRedisRuns() throws Exception {
        // The fallback on a machine without redis-server: exercised even where one is on the PATH.
        Path bundled = RedisBinary.bundled();
        assertEquals(bundled, RedisBinary.bundled(), "extracted once");
        try (RedisServer redis = RedisServer.start(bundled, dataDir, 0, List.of())) {
            System.out.printf(
                    "bundled redis-server %s started in %d ms%n",
                    redis.version(), redis.lastStartDuration().toMillis());
            try (Resp resp = Resp.connect(redis.port(), 2000)) {
                assertEquals("OK", resp.call("SET", "k", "v"));
            }
            redis.kill();
            redis.restart();
            try (Resp resp = Resp.connect(redis.port(), 2000)) {
                assertEquals("v", resp.call("GET", "k"));
            }
        }
    }
}

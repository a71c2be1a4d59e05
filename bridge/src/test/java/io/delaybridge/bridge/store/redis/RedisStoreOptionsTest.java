package io.delaybridge.bridge.store.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RedisStoreOptionsTest {

    @Test
    void passwordsNeverShow() {
        assertEquals("redis://***@host:6379/0", RedisStoreOptions.redact("redis://:s3cret@host:6379/0"));
        assertEquals("redis://***@host:6379", RedisStoreOptions.redact("redis://user:p@ss@host:6379"));
        assertEquals("redis://host:6379", RedisStoreOptions.redact("redis://host:6379"));
        assertEquals(
                "redis-sentinel://***@a:26379,b:26379#mymaster",
                RedisStoreOptions.redact("redis-sentinel://:pw@a:26379,b:26379#mymaster"));
        RedisStoreOptions options = RedisStoreOptions.of("rediss://:hunter2@h:6380", "delay-intake", 8);
        assertFalse(options.toString().contains("hunter2"), options.toString());
        assertTrue(options.toString().contains("rediss://***@h:6380"));
    }

    @Test
    void defaults() {
        RedisStoreOptions options = RedisStoreOptions.of("redis://h", "delay-intake", 8);
        assertEquals("dq", options.keyPrefix());
        assertEquals(0, options.waitReplicas());
        assertEquals(Duration.ofSeconds(5), options.commandTimeout());
    }

    @Test
    void refusesSettingsThatCannotWork() {
        assertThrows(IllegalArgumentException.class, () -> RedisStoreOptions.of("redis://h", "delay-intake", 0));
        assertThrows(IllegalArgumentException.class, () -> RedisStoreOptions.of("redis://h", "", 1));
        assertThrows(
                IllegalArgumentException.class,
                () -> RedisStoreOptions.of("redis://h", "t", 1).withKeyPrefix("a{b"));
        assertThrows(
                IllegalArgumentException.class,
                () -> RedisStoreOptions.of("redis://h", "t", 1).withWait(1, Duration.ZERO));
        assertThrows(
                IllegalArgumentException.class,
                () -> RedisStoreOptions.of("redis://h", "t", 1).withWait(-1, Duration.ofSeconds(1)));
        assertThrows(
                IllegalArgumentException.class,
                () -> RedisStoreOptions.of("redis://h", "t", 1).withCommandTimeout(Duration.ZERO));
    }

    @Test
    void theModeIsAutoUnlessNamedAndSurvivesTheOtherSetters() {
        RedisStoreOptions options = RedisStoreOptions.of("redis://h", "t", 1);
        assertEquals(RedisMode.AUTO, options.mode());
        RedisStoreOptions cluster = options.withMode(RedisMode.CLUSTER)
                .withKeyPrefix("x")
                .withWait(1, Duration.ofSeconds(1))
                .withCommandTimeout(Duration.ofSeconds(1));
        assertEquals(RedisMode.CLUSTER, cluster.mode());
        assertEquals(RedisMode.SENTINEL, RedisMode.parse(" Sentinel "));
        assertThrows(IllegalArgumentException.class, () -> RedisMode.parse("replicated"));
    }
}

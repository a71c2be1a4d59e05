package io.delaybridge.bridge.pump;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class RedisClockOffsetTest {

    private static final long HOST = 1_700_000_000_000L;
    private static final long T0 = 9_000_000_000L;

    @Test
    void redisTimeIsTheHostsPlusTheMeasuredOffset() {
        RedisClockOffset redis =
                new RedisClockOffset(Clock.fixed(Instant.ofEpochMilli(HOST), ZoneOffset.UTC), 1_000, T0);
        assertTrue(redis.stale(T0), "never measured");
        redis.measured(HOST + 3_600_000, HOST, T0); // Redis an hour ahead of this host
        assertFalse(redis.stale(T0 + TimeUnit.MILLISECONDS.toNanos(999)));
        assertTrue(redis.stale(T0 + TimeUnit.MILLISECONDS.toNanos(1_000)));
        assertEquals(HOST + 3_600_000, redis.now());
        assertEquals(0, redis.nanosUntil(HOST + 3_600_000));
        assertEquals(TimeUnit.MILLISECONDS.toNanos(5), redis.nanosUntil(HOST + 3_600_005));
        assertEquals(Long.MAX_VALUE, redis.nanosUntil(Long.MAX_VALUE));
    }
}

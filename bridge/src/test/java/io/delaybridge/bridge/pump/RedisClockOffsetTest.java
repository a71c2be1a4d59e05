package io.delaybridge.bridge.pump;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.bridge.time.MockTime;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class RedisClockOffsetTest {

    private static final long HOST = 1_700_000_000_000L;

    @Test
    void redisTimeIsTheHostsPlusTheMeasuredOffset() {
        MockTime time = new MockTime(HOST, 9_000_000_000L);
        long t0 = time.nanoseconds();
        RedisClockOffset redis = new RedisClockOffset(time, 1_000);
        assertTrue(redis.stale(t0), "never measured");
        redis.measured(HOST + 3_600_000, HOST, t0); // Redis an hour ahead of this host
        assertFalse(redis.stale(t0 + TimeUnit.MILLISECONDS.toNanos(999)));
        assertTrue(redis.stale(t0 + TimeUnit.MILLISECONDS.toNanos(1_000)));
        assertEquals(HOST + 3_600_000, redis.now());
        assertEquals(0, redis.nanosUntil(HOST + 3_600_000));
        assertEquals(TimeUnit.MILLISECONDS.toNanos(5), redis.nanosUntil(HOST + 3_600_005));
        assertEquals(Long.MAX_VALUE, redis.nanosUntil(Long.MAX_VALUE));
        time.shiftWall(-60_000); // this host's clock set back a minute: the estimate follows until measured again
        assertEquals(HOST + 3_540_000, redis.now());
    }
}

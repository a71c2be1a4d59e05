package io.delaybridge.bridge.intake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.bridge.time.MockTime;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class RedisClockCeilingTest {

    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long T0 = 7_000_000_000L; // an arbitrary monotonic origin

    @Test
    void knowsNothingBeforeTheFirstReading() {
        RedisClockCeiling ceiling = new RedisClockCeiling(new MockTime());
        assertEquals(Long.MAX_VALUE, ceiling.atMost(T0));
        assertFalse(ceiling.fresh(T0));
    }

    @Test
    void redisCanBeAtMostAsFarPastTheReadingAsTimePassedSinceTheRequest() {
        RedisClockCeiling ceiling = new RedisClockCeiling(new MockTime());
        ceiling.observe(1_000_000, T0);
        // the reading was rounded down (+1) and the elapsed time is rounded up (+1)
        assertEquals(1_000_002, ceiling.atMost(T0));
        assertEquals(1_000_012, ceiling.atMost(T0 + 10 * MS));
        assertEquals(1_000_012, ceiling.atMost(T0 + 10 * MS - 1), "a part of a millisecond counts as a whole one");
        assertEquals(
                1_004_002 + 2,
                ceiling.atMost(T0 + 4_000 * MS),
                "four seconds later 2 ms more: Redis' clock may run 500 ppm fast");
    }

    @Test
    void aReadingIsFreshForOneSecondAfterItsRequest() {
        RedisClockCeiling ceiling = new RedisClockCeiling(new MockTime());
        ceiling.observe(1_000_000, T0);
        assertTrue(ceiling.fresh(T0 + RedisClockCeiling.TRUSTED_NANOS));
        assertFalse(ceiling.fresh(T0 + RedisClockCeiling.TRUSTED_NANOS + 1));
        ceiling.observe(1_001_500, T0 + 1_500 * MS);
        assertTrue(ceiling.fresh(T0 + 1_600 * MS));
        assertEquals(1_001_602, ceiling.atMost(T0 + 1_600 * MS), "the newest reading counts");
    }

    @Test
    void readingNowAsksRedisOnlyWhenStaleAndAFailedReadIsUnknown() {
        MockTime time = new MockTime();
        RedisClockCeiling ceiling = new RedisClockCeiling(time);
        java.util.List<RuntimeException> failures = new java.util.ArrayList<>();
        assertEquals(
                Long.MAX_VALUE,
                ceiling.atMostNow(
                        () -> {
                            throw new IllegalStateException("Redis away");
                        },
                        failures::add));
        assertEquals(1, failures.size(), "the failure is told");
        assertEquals(5_002, ceiling.atMostNow(() -> 5_000, failures::add), "a fresh reading bounds the clock");
        time.step(1_000);
        assertEquals(
                6_002,
                ceiling.atMostNow(
                        () -> {
                            throw new AssertionError("a fresh reading is not read again");
                        },
                        failures::add),
                "a second later, still the same reading, a second further");
        time.stepNanos(1);
        assertEquals(9_002, ceiling.atMostNow(() -> 9_000, failures::add), "a stale reading is read again");
        assertEquals(1, failures.size());
    }
}

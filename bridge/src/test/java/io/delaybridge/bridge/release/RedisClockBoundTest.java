package io.delaybridge.bridge.release;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class RedisClockBoundTest {

    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long T0 = 5_000_000_000L; // an arbitrary monotonic origin

    /** {@code millis} after a reading, stretched by the clock-rate allowance. */
    private static long ahead(long millis) {
        return millis * MS + millis * MS / RedisClockBound.RATE_ALLOWANCE;
    }

    @Test
    void knowsNothingBeforeTheFirstReading() {
        assertEquals(Long.MAX_VALUE, new RedisClockBound().reachesAt(1_000));
    }

    @Test
    void aDueTimeIsReachedAsLongAfterTheAnswerAsItLiesAheadOfTheReading() {
        RedisClockBound bound = new RedisClockBound();
        bound.observe(1_000_000, T0);
        assertEquals(T0 + ahead(7), bound.reachesAt(1_000_007));
        assertEquals(T0, bound.reachesAt(1_000_000));
        assertEquals(T0, bound.reachesAt(999_000), "a due time already passed is reached at once");
        assertEquals(
                T0 + 1_000_500_000L,
                bound.reachesAt(1_001_000),
                "a second ahead waits 0.5 ms more: the host's clock may run 500 ppm fast");
    }

    @Test
    void keepsTheTighterOfTwoReadings() {
        RedisClockBound bound = new RedisClockBound();
        bound.observe(1_000_000, T0);
        // 10 ms later a reading that is only 4 ms further: it was taken 6 ms before its answer came, a looser bound
        bound.observe(1_000_004, T0 + 10 * MS);
        assertEquals(T0 + ahead(20), bound.reachesAt(1_000_020));
        // 20 ms after the first, a reading 25 ms further: Redis' clock is later than the first reading showed
        bound.observe(1_000_025, T0 + 20 * MS);
        assertEquals(T0 + 20 * MS, bound.reachesAt(1_000_025));
        assertEquals(T0 + 20 * MS + ahead(5), bound.reachesAt(1_000_030));
    }

    @Test
    void aReadingOlderThanASecondGivesWayToANewOneEvenIfLooser() {
        RedisClockBound bound = new RedisClockBound();
        bound.observe(1_000_000, T0);
        long later = T0 + RedisClockBound.TRUSTED_NANOS + MS;
        bound.observe(1_001_000, later); // looser by 1 ms than the first reading extended
        assertEquals(later + ahead(10), bound.reachesAt(1_001_010));
    }
}

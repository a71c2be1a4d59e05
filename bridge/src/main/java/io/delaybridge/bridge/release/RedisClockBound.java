package io.delaybridge.bridge.release;

import java.util.concurrent.TimeUnit;

/**
 * A lower bound of Redis' clock, on this host's monotonic clock: the pump sends a message claimed ahead of its due
 * time (and the intake an express record due within its window) only once this bound has reached the due time, so
 * look-ahead never makes a delivery early.
 *
 * <p>A reading of Redis' {@code TIME} (ms, rounded down) that arrived at monotonic time {@code a} was taken before
 * {@code a}; so at any later monotonic time {@code t}, Redis' clock shows at least {@code reading + (t - a)}. No
 * estimate of the host clock's offset enters, and a host clock that is wrong or stepped changes nothing. Of several
 * readings the tightest bound wins (the one that arrived soonest after it was taken); a reading is trusted for
 * {@link #TRUSTED_NANOS} only, and the time ahead of a reading is stretched by {@link #RATE_ALLOWANCE} (1/2000),
 * because the two clocks may run at slightly different rates (NTP slews a clock by up to 500 ppm).
 *
 * <p>Not thread-safe: {@link DueReleaser} guards it with its lock.
 */
final class RedisClockBound {

    /** How long a reading is preferred over a looser, newer one. */
    static final long TRUSTED_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** The time ahead of a reading is stretched by 1/this: 500 ppm, the most NTP slews a clock. */
    static final long RATE_ALLOWANCE = 2_000;

    private boolean known;
    private long readingMillis;
    private long arrivedNanos;

    /** Records a reading of Redis' clock, {@code redisMillis}, whose answer arrived at monotonic {@code nowNanos}. */
    void observe(long redisMillis, long nowNanos) {
        boolean stale = !known || nowNanos - arrivedNanos > TRUSTED_NANOS;
        if (stale || tighter(redisMillis, nowNanos)) {
            known = true;
            readingMillis = redisMillis;
            arrivedNanos = nowNanos;
        }
    }

    /** Whether the reading bounds Redis' clock higher than the one kept (both bounds grow one ms per ms). */
    private boolean tighter(long redisMillis, long nowNanos) {
        return TimeUnit.MILLISECONDS.toNanos(redisMillis - readingMillis) > nowNanos - arrivedNanos;
    }

    /** The monotonic time from which Redis' clock is certainly at or past {@code dueAt}; MAX_VALUE before any reading. */
    long reachesAt(long dueAt) {
        if (!known) {
            return Long.MAX_VALUE;
        }
        long aheadMillis = dueAt - readingMillis;
        if (aheadMillis <= 0) {
            return arrivedNanos;
        }
        long aheadNanos = TimeUnit.MILLISECONDS.toNanos(aheadMillis);
        return arrivedNanos + aheadNanos + aheadNanos / RATE_ALLOWANCE;
    }
}

package io.delaybridge.bridge.intake;

import io.delaybridge.bridge.time.Time;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * An upper bound of Redis' clock, on this host's monotonic clock: the intake lets a stored record's offset wait for a
 * later commit only while Redis' clock is certainly short of the record's due time by a margin.
 *
 * <p>A reading of Redis' {@code TIME} (ms, rounded down) requested at monotonic time {@code s} was taken after
 * {@code s}; so at any later monotonic time {@code t}, Redis' clock shows at most {@code reading + 1 + (t - s)}, the
 * time since the request stretched by {@link #RATE_ALLOWANCE} (1/2000: NTP slews a clock by up to 500 ppm). No
 * estimate of the host clock's offset enters. A reading is used for {@link #TRUSTED_NANOS}; then it is stale and the
 * caller reads Redis' clock again. The counterpart of the pump's lower bound ({@code release.RedisClockBound}).
 *
 * <p>Not thread-safe: the intake thread owns it.
 */
final class RedisClockCeiling {

    /** How long a reading is used before the caller should read Redis' clock again. */
    static final long TRUSTED_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** The time since a reading is stretched by 1/this: 500 ppm, the most NTP slews a clock. */
    static final long RATE_ALLOWANCE = 2_000;

    private final Time time;
    private boolean known;
    private long readingMillis;
    private long requestedNanos;

    RedisClockCeiling(Time time) {
        this.time = time;
    }

    /** Records a reading of Redis' clock, {@code redisMillis}, requested at monotonic {@code requestedNanos}. */
    void observe(long redisMillis, long requestedNanos) {
        known = true;
        readingMillis = redisMillis;
        this.requestedNanos = requestedNanos;
    }

    /** Whether a reading is known and younger than {@link #TRUSTED_NANOS} at monotonic {@code nowNanos}. */
    boolean fresh(long nowNanos) {
        return known && nowNanos - requestedNanos <= TRUSTED_NANOS;
    }

    /**
     * The latest time Redis' clock can show now, reading it from {@code redisClock} first if the last reading is
     * stale; MAX_VALUE if that read fails ({@code failed} is told why).
     */
    long atMostNow(LongSupplier redisClock, Consumer<RuntimeException> failed) {
        long now = time.nanoseconds();
        if (!fresh(now)) {
            try {
                observe(redisClock.getAsLong(), now);
            } catch (RuntimeException e) {
                failed.accept(e);
                return Long.MAX_VALUE;
            }
        }
        return atMost(time.nanoseconds());
    }

    /** The latest time Redis' clock can show at monotonic {@code nowNanos}; MAX_VALUE before any reading. */
    long atMost(long nowNanos) {
        if (!known) {
            return Long.MAX_VALUE;
        }
        long sinceMillis = (Math.max(0, nowNanos - requestedNanos) + 999_999) / 1_000_000;
        return readingMillis + 1 + sinceMillis + sinceMillis / RATE_ALLOWANCE + 1;
    }
}

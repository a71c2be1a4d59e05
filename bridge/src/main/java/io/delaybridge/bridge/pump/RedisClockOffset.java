package io.delaybridge.bridge.pump;

import io.delaybridge.bridge.time.Time;
import java.util.concurrent.TimeUnit;

/**
 * Redis' clock estimated from this host's: due times are Redis times, so the pump sleeps by this estimate (never
 * sends by it: sends wait for {@code release.RedisClockBound}). Holds no connection.
 */
final class RedisClockOffset {

    private final Time time;
    private final long maxAgeNanos;
    /** Redis' clock minus this host's, as last measured. */
    private volatile long offsetMillis;
    /** When {@link #offsetMillis} was measured, as {@link Time#nanoseconds}. */
    private volatile long measuredAtNanos;

    /** A measurement older than {@code maxAgeMillis} is {@link #stale}; the first one is stale at once. */
    RedisClockOffset(Time time, long maxAgeMillis) {
        this.time = time;
        this.maxAgeNanos = TimeUnit.MILLISECONDS.toNanos(maxAgeMillis);
        this.measuredAtNanos = time.nanoseconds() - TimeUnit.DAYS.toNanos(1);
    }

    /** This host's clock, in ms: take it before a call that reads Redis' clock, for {@link #measured}. */
    long hostMillis() {
        return time.milliseconds();
    }

    /** Redis showed {@code redisMillis} during a call that began at host time {@code beforeHostMillis} and ends now. */
    void measured(long redisMillis, long beforeHostMillis, long nowNanos) {
        offsetMillis = redisMillis - (beforeHostMillis + time.milliseconds()) / 2;
        measuredAtNanos = nowNanos;
    }

    /** Whether the last measurement is too old to trust: a stepped host clock is noticed within the maximum age. */
    boolean stale(long nowNanos) {
        return nowNanos - measuredAtNanos >= maxAgeNanos;
    }

    /** Redis' time now, as estimated. */
    long now() {
        return time.milliseconds() + offsetMillis;
    }

    /** How long until Redis' clock, as estimated, shows {@code redisAt}: 0 if it does, MAX_VALUE for MAX_VALUE. */
    long nanosUntil(long redisAt) {
        if (redisAt == Long.MAX_VALUE) {
            return Long.MAX_VALUE;
        }
        long now = now();
        return redisAt <= now ? 0 : TimeUnit.MILLISECONDS.toNanos(redisAt - now);
    }
}

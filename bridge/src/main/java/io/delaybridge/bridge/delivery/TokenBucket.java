package io.delaybridge.bridge.delivery;

/**
 * A token bucket: {@code perSecond} tokens a second, at most {@code burst} stored. A full bucket lets {@code burst}
 * sends go at once, then one every {@code 1/perSecond} s; over any window of {@code w} seconds at most
 * {@code burst + perSecond * w} sends pass. Starts full.
 *
 * <p>Pure: times are {@link System#nanoTime}-style values passed in by the caller, so tests drive the clock. Not
 * thread-safe: its owner ({@code Throttle}) calls it under its lock.
 */
public final class TokenBucket implements Bucket {

    /** A bucket of its own per instance and target, with the burst {@link #burstFor} the cap. */
    public static final Bucket.Factory PER_INSTANCE =
            (target, perSecond) -> new TokenBucket(perSecond, burstFor(perSecond));

    private static final double NANOS_PER_SECOND = 1e9;

    private final double perSecond;
    private final double burst;
    private double tokens;
    private long lastNanos;
    private boolean started;

    public TokenBucket(double perSecond, int burst) {
        if (!(perSecond > 0) || Double.isInfinite(perSecond)) {
            throw new IllegalArgumentException("rate is " + perSecond + " per second: must be above 0");
        }
        if (burst < 1) {
            throw new IllegalArgumentException("burst is " + burst + ": must be at least 1");
        }
        this.perSecond = perSecond;
        this.burst = burst;
        this.tokens = burst;
    }

    /** The burst that suits a cap: a tenth of a second's worth, at least 1. */
    public static int burstFor(double perSecond) {
        return (int) Math.max(1, Math.ceil(perSecond / 10));
    }

    @Override
    public double perSecond() {
        return perSecond;
    }

    public int burst() {
        return (int) burst;
    }

    @Override
    public boolean tryTake(long nowNanos) {
        refill(nowNanos);
        if (tokens >= 1) {
            tokens -= 1;
            return true;
        }
        return false;
    }

    /** Tokens stored at {@code nowNanos} (fractional: a token in the making). */
    public double tokens(long nowNanos) {
        refill(nowNanos);
        return tokens;
    }

    @Override
    public long nanosUntil(long nowNanos, int count) {
        refill(nowNanos);
        double missing = count - tokens;
        return missing <= 0 ? 0 : (long) Math.ceil(missing * NANOS_PER_SECOND / perSecond);
    }

    private void refill(long nowNanos) {
        if (!started) {
            started = true;
            lastNanos = nowNanos;
            return;
        }
        long elapsed = nowNanos - lastNanos;
        if (elapsed > 0) {
            tokens = Math.min(burst, tokens + elapsed * perSecond / NANOS_PER_SECOND);
            lastNanos = nowNanos;
        }
    }
}

package io.delaybridge.connectors.spring;

import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;

/**
 * How long a failed record waits in the bridge before its next delivery: fixed, exponential with a cap and jitter,
 * or a list of delays.
 *
 * <pre>{@code
 * RetryBackOff.fixed(Duration.ofSeconds(5))                                  // 5 s, 5 s, 5 s, ...
 * RetryBackOff.exponential(Duration.ofSeconds(1), 2.0, Duration.ofMinutes(5)) // 1 s, 2 s, 4 s, ... at most 5 min
 *     .withJitter(0.2)                                                      // each one 0.8x to 1.2x, then capped
 * RetryBackOff.of(Duration.ofSeconds(1), Duration.ofSeconds(30), Duration.ofMinutes(10)) // the last one repeats
 * }</pre>
 *
 * <p>Unlike {@code @RetryableTopic}, any delay costs nothing: there is no topic per delay value, so a jittered or
 * exponential back-off needs no new topics. Immutable and thread-safe.
 */
public final class RetryBackOff {

    private final List<Duration> delays;
    private final double multiplier;
    private final Duration max;
    private final double jitter;
    private final DoubleSupplier random;

    private RetryBackOff(List<Duration> delays, double multiplier, Duration max, double jitter, DoubleSupplier random) {
        this.delays = delays;
        this.multiplier = multiplier;
        this.max = max;
        this.jitter = jitter;
        this.random = random;
    }

    /**
     * @param delay the wait before every retry, zero or more
     * @return the same delay before each retry
     */
    public static RetryBackOff fixed(Duration delay) {
        return new RetryBackOff(List.of(nonNegative(delay, "delay")), 1.0, null, 0, null);
    }

    /**
     * @param initial    the wait before the first retry, zero or more
     * @param multiplier the factor from one retry's wait to the next, 1 or more
     * @param max        the cap: no wait is longer
     * @return {@code initial * multiplier^(retry - 1)}, at most {@code max}
     */
    public static RetryBackOff exponential(Duration initial, double multiplier, Duration max) {
        nonNegative(initial, "initial delay");
        nonNegative(max, "maximum delay");
        if (!(multiplier >= 1.0) || Double.isInfinite(multiplier)) {
            throw new IllegalArgumentException("multiplier " + multiplier + " must be a number of 1 or more");
        }
        if (max.compareTo(initial) < 0) {
            throw new IllegalArgumentException(
                    "maximum delay " + max + " is shorter than the initial delay " + initial);
        }
        return new RetryBackOff(List.of(initial), multiplier, max, 0, null);
    }

    /**
     * @param delays the wait before the first, second, ... retry; the last one serves every later retry
     * @return the delays in order
     */
    public static RetryBackOff of(Duration... delays) {
        return of(delays == null ? null : List.of(delays));
    }

    /**
     * @param delays the wait before the first, second, ... retry; the last one serves every later retry
     * @return the delays in order
     */
    public static RetryBackOff of(List<Duration> delays) {
        if (delays == null || delays.isEmpty()) {
            throw new IllegalArgumentException(
                    "no delays: give at least one, e.g. RetryBackOff.of(Duration.ofSeconds(1))");
        }
        delays.forEach(d -> nonNegative(d, "delay"));
        return new RetryBackOff(List.copyOf(delays), 1.0, null, 0, null);
    }

    /**
     * Spreads retries that failed together: each wait is multiplied by a random factor in
     * {@code [1 - fraction, 1 + fraction]}, then capped.
     *
     * @param fraction from 0 (none) to 1
     * @return a copy with jitter
     */
    public RetryBackOff withJitter(double fraction) {
        return withJitter(fraction, () -> ThreadLocalRandom.current().nextDouble());
    }

    /**
     * Like {@link #withJitter(double)}, drawing from {@code random} (for tests).
     *
     * @param fraction from 0 (none) to 1
     * @param random   the source of the random factor
     * @return a copy with jitter
     */
    public RetryBackOff withJitter(double fraction, Random random) {
        return withJitter(fraction, random::nextDouble);
    }

    private RetryBackOff withJitter(double fraction, DoubleSupplier source) {
        if (!(fraction >= 0 && fraction <= 1)) {
            throw new IllegalArgumentException("jitter " + fraction + " must be between 0 and 1, e.g. 0.2 for +-20%");
        }
        return new RetryBackOff(delays, multiplier, max, fraction, source);
    }

    /**
     * @param retry 1 for the first retry (the second delivery), 2 for the second, ...
     * @return how long the record waits in the bridge before that delivery
     */
    public Duration delayBefore(int retry) {
        if (retry < 1) {
            throw new IllegalArgumentException("retry " + retry + " must be 1 or more");
        }
        double millis;
        if (multiplier == 1.0) {
            millis = delays.get(Math.min(retry, delays.size()) - 1).toMillis();
        } else {
            millis = delays.get(0).toMillis() * Math.pow(multiplier, retry - 1);
        }
        if (jitter > 0) {
            millis *= 1 - jitter + 2 * jitter * random.getAsDouble();
        }
        if (max != null) {
            millis = Math.min(millis, max.toMillis());
        }
        return Duration.ofMillis(Math.round(Math.min(millis, Long.MAX_VALUE)));
    }

    private static Duration nonNegative(Duration d, String what) {
        if (d == null || d.isNegative()) {
            throw new IllegalArgumentException(what + " " + d + " must be zero or more");
        }
        return d;
    }

    @Override
    public String toString() {
        String base = multiplier != 1.0
                ? "exponential " + delays.get(0) + " x" + multiplier + " max " + max
                : delays.size() == 1 ? "fixed " + delays.get(0) : "delays " + delays;
        return "RetryBackOff[" + base + (jitter > 0 ? ", jitter " + jitter : "") + "]";
    }
}

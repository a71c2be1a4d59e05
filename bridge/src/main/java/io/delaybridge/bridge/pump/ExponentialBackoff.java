package io.delaybridge.bridge.pump;

/** Doubles the wait after each failed attempt, from {@code initialMillis} up to {@code maxMillis}. */
public record ExponentialBackoff(int maxAttempts, long initialMillis, long maxMillis) implements RetryPolicy {

    public ExponentialBackoff {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1, got " + maxAttempts);
        }
        if (initialMillis < 0 || maxMillis < initialMillis) {
            throw new IllegalArgumentException(
                    "need 0 <= initialMillis <= maxMillis, got " + initialMillis + " and " + maxMillis);
        }
    }

    @Override
    public long backoffMillis(int failedAttempt) {
        int doublings = Math.max(0, failedAttempt - 1);
        if (initialMillis == 0) {
            return 0;
        }
        if (doublings >= Long.numberOfLeadingZeros(initialMillis) - 1) {
            return maxMillis; // the shift would overflow
        }
        return Math.min(maxMillis, initialMillis << doublings);
    }
}

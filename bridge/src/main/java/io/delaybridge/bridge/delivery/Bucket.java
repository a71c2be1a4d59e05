package io.delaybridge.bridge.delivery;

/**
 * What a capped target's sends wait on: tokens at a rate. Times are {@code System.nanoTime}-style values passed in by
 * the caller, so tests drive the clock. {@link TokenBucket} holds a cap per instance; {@link SharedBucket} one that
 * every instance shares.
 */
public interface Bucket {

    /** The cap: tokens a second. */
    double perSecond();

    /** Takes a token if one is there at {@code nowNanos}. */
    boolean tryTake(long nowNanos);

    /**
     * Nanoseconds from {@code nowNanos} until a message queued behind {@code count - 1} others can go: 0 if it can go
     * now. An estimate for a shared cap: the caller asks again then.
     */
    long nanosUntil(long nowNanos, int count);

    /** Makes the bucket of one capped target: per instance ({@link TokenBucket#PER_INSTANCE}) or shared. */
    @FunctionalInterface
    interface Factory {
        Bucket forTarget(String target, double perSecond);
    }
}

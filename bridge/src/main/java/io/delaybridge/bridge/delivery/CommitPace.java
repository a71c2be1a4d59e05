package io.delaybridge.bridge.delivery;

/**
 * When the commit thread commits next: one interval after the last commit started, not after it ended. A transaction
 * then gathers for the interval, and a send waits for its commit no longer than the interval plus one commit (after
 * its end, a commit's own time came on top of the interval). A commit that ran past the next turn is followed by the
 * next at once: the other producer gathered meanwhile. Arithmetic on a monotonic clock's readings; not thread-safe
 * (the commit thread alone uses it).
 */
final class CommitPace {

    private final long intervalNanos;
    private long next;

    CommitPace(long intervalNanos, long now) {
        this.intervalNanos = intervalNanos;
        this.next = now + intervalNanos;
    }

    /** How long to wait from {@code now} until the next commit is due; 0 once it is. */
    long waitNanos(long now) {
        return Math.max(0, next - now);
    }

    /** A commit starts at {@code now}: the next is due one interval later. */
    void started(long now) {
        next = now + intervalNanos;
    }
}

package io.delaybridge.bridge.delivery;

/**
 * When the commit thread commits next. A quick commit is followed one interval after it started, not after it ended:
 * a send then waits for its commit no longer than the interval plus one commit. The next commit waits at least as
 * long after the end of the last as the last took, and after a commit as long as the interval or longer, a whole
 * interval: when commits are slow (a burst, a busy broker), transactions stay large, and their cost per record small.
 * Arithmetic on a monotonic clock's readings; not thread-safe (the commit thread alone uses it).
 */
final class CommitPace {

    private final long intervalNanos;
    private long next;
    private long startedAt;

    CommitPace(long intervalNanos, long now) {
        this.intervalNanos = intervalNanos;
        this.next = now + intervalNanos;
    }

    /** How long to wait from {@code now} until the next commit is due; 0 once it is. */
    long waitNanos(long now) {
        return Math.max(0, next - now);
    }

    /** A commit starts at {@code now}. */
    void started(long now) {
        startedAt = now;
    }

    /** The commit started last ended at {@code now}: the next is due one interval after its start, or later. */
    void ended(long now) {
        long took = now - startedAt;
        next = Math.max(startedAt + intervalNanos, now + Math.min(took, intervalNanos));
    }
}

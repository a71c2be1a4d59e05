package io.delaybridge.bridge.intake;

import io.delaybridge.bridge.time.RedisClock;

/**
 * When the intake commits the offsets of records Redis holds: at once for a batch that holds a record due soon or a
 * refused record, else at most {@code commitInterval} later, together with whatever was stored meanwhile.
 *
 * <p>Why waiting is safe: a crash re-reads what is not committed. A re-read record still pending in Redis is stored
 * once (schedules are idempotent on (id, origin)), so only a record delivered and deleted before its commit comes out
 * twice. A record may wait only if it is due later than {@link #GUARD_MILLIS} plus the interval after the latest time
 * Redis' clock can show ({@link RedisClock#atMost}): its commit comes before it can be claimed. A refused record's
 * deadletter copy is written before the commit, so its batch commits at once, as every batch did before the interval.
 * The crash window stays what {@code docs/reliability.md} says: the batches on their way to Redis.
 *
 * <p>Times are monotonic nanoseconds. Not thread-safe: the intake thread owns it.
 */
final class CommitPacer {

    /**
     * Slack between the planned commit and the earliest due time of what waits for it: the loop's own delays (the
     * commit's round trip to the broker, a write completing, a poll, all capped at the planned time). Not longer: with
     * 1 s, delays of 1-5 s (2.5 % of them within 1.1 s) put such a record in nearly every poll of a hundred, and nearly
     * every poll committed at once.
     */
    static final long GUARD_MILLIS = 250;

    private final long intervalMillis;
    private final long intervalNanos;
    private long dueAtNanos = Long.MAX_VALUE;

    /** {@code intervalMillis} 0 commits every stored batch at once. */
    CommitPacer(long intervalMillis) {
        this.intervalMillis = intervalMillis;
        this.intervalNanos = intervalMillis * 1_000_000;
    }

    /** Whether the interval is set: only then does a batch's earliest due time matter. */
    boolean paced() {
        return intervalMillis > 0;
    }

    /**
     * Whether the offsets of a stored batch may wait for the next paced commit.
     *
     * @param earliestDueAt   the earliest due time among its schedules (epoch ms), MAX_VALUE if it has none
     * @param refused         whether it holds a refused record (written to the deadletter topic)
     * @param redisNowAtMost  the latest time Redis' clock can show now (epoch ms), MAX_VALUE if unknown
     */
    boolean mayWait(long earliestDueAt, boolean refused, long redisNowAtMost) {
        if (!paced() || refused) {
            return false;
        }
        if (earliestDueAt == Long.MAX_VALUE) {
            return true; // cancels only: nothing of it is ever delivered
        }
        return redisNowAtMost != Long.MAX_VALUE && earliestDueAt - intervalMillis - GUARD_MILLIS > redisNowAtMost;
    }

    /** A batch was stored at {@code nowNanos}; its offsets wait (see {@link #mayWait}) or are due at once. */
    void stored(boolean mayWait, long nowNanos) {
        dueAtNanos = Math.min(dueAtNanos, mayWait ? nowNanos + intervalNanos : nowNanos);
    }

    /** Whether a commit is due at {@code nowNanos}. */
    boolean due(long nowNanos) {
        return dueAtNanos != Long.MAX_VALUE && nowNanos - dueAtNanos >= 0;
    }

    /** Nanoseconds from {@code nowNanos} until a commit is due: 0 if it is, MAX_VALUE if nothing waits. */
    long nanosUntilDue(long nowNanos) {
        return dueAtNanos == Long.MAX_VALUE ? Long.MAX_VALUE : Math.max(0, dueAtNanos - nowNanos);
    }

    /** Every stored offset is committed: nothing waits. */
    void committed() {
        dueAtNanos = Long.MAX_VALUE;
    }

    /** A commit failed at {@code nowNanos}: try again {@code retryNanos} later, or sooner for a batch due at once. */
    void failed(long nowNanos, long retryNanos) {
        dueAtNanos = nowNanos + retryNanos;
    }
}

package io.delaybridge.bridge.pump;

import io.delaybridge.bridge.time.Time;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/** A shard this instance pumps, with the epoch that proves it, and when it next needs attention. */
final class OwnedShard {

    static final long NOT_ACQUIRED = -1;

    final int shard;

    /**
     * The fencing epoch, taken by the pump thread once the shard is assigned; {@link #NOT_ACQUIRED} until then (and
     * while Redis cannot be reached), so a Redis outage during a rebalance delays the shard instead of failing the
     * consumer's rebalance.
     */
    volatile long epoch = NOT_ACQUIRED;

    /** The earliest due time known in the shard; the pump claims when Redis' clock reaches it. */
    volatile long nextDueAt;

    /**
     * The earliest due time announced by wake notifications since the last claim began. Reset before each claim so a
     * wake that races the claim's answer is never overwritten by it.
     */
    final AtomicLong wokenAt = new AtomicLong(Long.MAX_VALUE);

    /**
     * When the shard's expired leases are next returned to the due set, as {@link Time#nanoseconds}: a local interval,
     * not a Redis time, so it holds before the pump has measured how far its host clock is off Redis'.
     */
    volatile long reclaimAtNanos;

    /** Messages of this shard sent and not yet acknowledged, retried or deadlettered. */
    final AtomicInteger outstanding = new AtomicInteger();

    /**
     * Set when a claim failed otherwise than fenced (pump thread only): it may have run in Redis with its answer lost
     * on the way back, leaving messages in flight that nobody sends. {@link ShardOwnership#returnLostClaims} returns
     * them before the shard is claimed again, instead of leaving them to their lease.
     */
    boolean claimAnswerLost;

    /** Whether the shard's delivery was opened once (pump thread only): opening it again proves the epoch first. */
    boolean deliveryOpened;

    /** Set when the consumer group took the shard away: no more claims, only the in-flight ones are finished. */
    volatile boolean revoked;

    /** {@code nowNanos}: {@link Time#nanoseconds()} now; the first reclaim is due at once. */
    OwnedShard(int shard, long nowNanos) {
        this.shard = shard;
        this.nextDueAt = Long.MIN_VALUE; // claim at once: the shard may hold messages that are due already
        this.reclaimAtNanos = nowNanos; // at once
    }

    void woken(long dueAt) {
        wokenAt.accumulateAndGet(dueAt, Math::min);
    }
}

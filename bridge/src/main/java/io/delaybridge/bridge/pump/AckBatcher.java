package io.delaybridge.bridge.pump;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Gathers delivered and deadlettered messages per shard until they are acked together: once the oldest is half a
 * look-ahead old, a batch's worth has gathered, a shard is being revoked, or the pump stops.
 *
 * <p>Acked as their outcomes came in, a steady stream was acked a few messages per call: every producer answer and
 * every ack answer woke the pump, which acked whatever had arrived since (at 5,000 records/s, thousands of ack calls a
 * second; each a script run and, with appendfsync always, often an fsync). Waiting half a look-ahead gathers them; it
 * costs nothing but the in-flight places they hold that much longer (a crash in that time delivers them again, as it
 * would any message delivered and not yet acked).
 *
 * <p>Times are monotonic nanoseconds. Holds no connection; pump thread only.
 */
final class AckBatcher {

    private final long delayNanos;
    private final int batchSize;
    private final Map<OwnedShard, List<Outcome>> unacked = new HashMap<>();
    /** When the oldest of {@link #unacked} was added. */
    private long sinceNanos;

    /** Acks wait up to half of {@code lookAheadMillis}, or until {@code batchSize} have gathered. */
    AckBatcher(long lookAheadMillis, int batchSize) {
        this.delayNanos = TimeUnit.MILLISECONDS.toNanos(lookAheadMillis / 2);
        this.batchSize = batchSize;
    }

    boolean isEmpty() {
        return unacked.isEmpty();
    }

    /** Adds finished outcomes, per shard, at {@code nowNanos}. */
    void add(Map<OwnedShard, List<Outcome>> finished, long nowNanos) {
        if (finished.isEmpty()) {
            return;
        }
        if (unacked.isEmpty()) {
            sinceNanos = nowNanos;
        }
        finished.forEach((shard, done) ->
                unacked.computeIfAbsent(shard, s -> new ArrayList<>()).addAll(done));
    }

    /**
     * Takes what is to be acked now (everything with {@code all}), per shard; empty if the acks may wait on.
     */
    Map<OwnedShard, List<Outcome>> takeDue(boolean all, long nowNanos) {
        if (unacked.isEmpty()) {
            return Map.of();
        }
        boolean due = all || nowNanos - sinceNanos >= delayNanos;
        if (!due) {
            int count = 0;
            for (Map.Entry<OwnedShard, List<Outcome>> entry : unacked.entrySet()) {
                count += entry.getValue().size();
                due |= entry.getKey().revoked;
            }
            due |= count >= batchSize;
        }
        if (!due) {
            return Map.of();
        }
        Map<OwnedShard, List<Outcome>> taken = new HashMap<>(unacked);
        unacked.clear();
        return taken;
    }

    /**
     * Nanoseconds from {@code nowNanos} until the gathered acks are due by age (negative if overdue); MAX_VALUE if
     * nothing is gathered.
     */
    long nanosUntilDue(long nowNanos) {
        if (unacked.isEmpty()) {
            return Long.MAX_VALUE;
        }
        return sinceNanos + delayNanos - nowNanos;
    }
}

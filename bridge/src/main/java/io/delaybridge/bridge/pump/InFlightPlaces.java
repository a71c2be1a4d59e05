package io.delaybridge.bridge.pump;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts the messages on their way: claimed and not yet acked, retried or deadlettered (at most
 * {@code pump.maxInFlight}: a slow target pauses claiming, never the heap), per shard too (a revoked shard waits for
 * its own), and the acks sent to Redis and not yet answered. Each place freed wakes the pump. Holds no connection;
 * thread-safe (producer callbacks and ack answers free places).
 */
final class InFlightPlaces {

    private final int max;
    private final Wakeups wakeups;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger pendingAcks = new AtomicInteger();

    InFlightPlaces(int max, Wakeups wakeups) {
        this.max = max;
        this.wakeups = wakeups;
    }

    /** Messages claimed and not finished. */
    int count() {
        return inFlight.get();
    }

    /** Free places: what a claim may take now (0 or less: none). */
    int room() {
        return max - inFlight.get();
    }

    boolean full() {
        return inFlight.get() >= max;
    }

    /**
     * Reserves {@code places} of a shard before its claim is issued: a revoke waits for them, so a claim under way is
     * sent and acked before the shard moves.
     */
    void reserve(OwnedShard shard, int places) {
        shard.outstanding.addAndGet(places);
    }

    /** Returns reserved places a claim did not fill (or a failed claim's). */
    void unreserve(OwnedShard shard, int places) {
        shard.outstanding.addAndGet(-places);
        wakeups.signal();
    }

    /** A claim came back with {@code messages}: they hold places until finished. */
    void claimed(int messages) {
        inFlight.addAndGet(messages);
    }

    /** {@code count} messages of the shard are acked, retried or handed back: their places are free. */
    void finish(OwnedShard shard, int count) {
        inFlight.addAndGet(-count);
        shard.outstanding.addAndGet(-count);
        wakeups.signal();
    }

    void ackSent() {
        pendingAcks.incrementAndGet();
    }

    void ackAnswered() {
        pendingAcks.decrementAndGet();
    }

    /** Acks sent and not yet answered. */
    int pendingAcks() {
        return pendingAcks.get();
    }
}

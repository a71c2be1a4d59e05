package io.delaybridge.checker;

import java.util.function.BooleanSupplier;

/**
 * When the load sends each record: at the campaign's rate, except that the last quarter of the records trickles out
 * at {@link #TRICKLE_PER_SECOND} for as long as the fault injector still has crash points to reach. A bridge armed at
 * a crash point halts only when traffic reaches that point (a store, a claim, a send); on a loaded machine the faults
 * before it can take longer than the load would otherwise last, and the campaign would then miss that fault. Once
 * released, the load goes on at the full rate from that moment, without a burst to catch up.
 */
final class LoadPacer {

    static final int TRICKLE_PER_SECOND = 10;

    private final long periodNanos;
    private final int holdFrom;
    private final BooleanSupplier released;
    private long next;

    LoadPacer(int rate, int records, BooleanSupplier crashPointsDone, long startNanos) {
        this.periodNanos = (long) (1e9 / rate);
        this.holdFrom = records - records / 4;
        this.released = crashPointsDone;
        this.next = startNanos;
    }

    /** The time (System.nanoTime) at which record n, the next one, may be sent. */
    long sendAt(int n, long nowNanos) {
        if (n >= holdFrom && !released.getAsBoolean()) {
            next = Math.max(next, nowNanos) + 1_000_000_000L / TRICKLE_PER_SECOND;
        } else {
            next = n == 0 ? next : next + periodNanos;
        }
        return next;
    }
}

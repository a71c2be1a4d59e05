package io.delaybridge.bridge.time;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link Time} that moves only when told (after apache/kafka's {@code MockTime}): {@link #sleep} and
 * {@link #step} advance both clocks together, unless {@link #shiftWall} steps the wall clock alone, as NTP or an
 * operator steps a host's clock. Safe to read from several threads.
 */
public final class MockTime implements Time {

    private final AtomicLong wallMillis;
    private final AtomicLong monotonicNanos;

    /** Wall clock at 2026-01-01T00:00:00Z, monotonic clock at an arbitrary large value (as the host's may be). */
    public MockTime() {
        this(1_767_225_600_000L, TimeUnit.DAYS.toNanos(3));
    }

    public MockTime(long wallMillis, long monotonicNanos) {
        this.wallMillis = new AtomicLong(wallMillis);
        this.monotonicNanos = new AtomicLong(monotonicNanos);
    }

    @Override
    public long milliseconds() {
        return wallMillis.get();
    }

    @Override
    public long nanoseconds() {
        return monotonicNanos.get();
    }

    /** Steps both clocks by {@code millis}. */
    @Override
    public void sleep(long millis) {
        step(millis);
    }

    /** Steps both clocks by {@code millis}. */
    public void step(long millis) {
        stepNanos(TimeUnit.MILLISECONDS.toNanos(millis));
    }

    /** Steps both clocks by {@code nanos}; the wall clock by the whole ms passed since its last ms. */
    public synchronized void stepNanos(long nanos) {
        long before = monotonicNanos.get();
        long after = monotonicNanos.addAndGet(nanos);
        wallMillis.addAndGet(Math.floorDiv(after, 1_000_000) - Math.floorDiv(before, 1_000_000));
    }

    /** Steps the wall clock alone by {@code millis} (negative: back), as a host's stepped clock. */
    public void shiftWall(long millis) {
        wallMillis.addAndGet(millis);
    }
}

package io.delaybridge.bridge.time;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * The one source of time in the bridge (after apache/kafka's {@code Time}): every class that reads a clock or sleeps
 * is given one, so tests step a {@code MockTime} instead of waiting, and no class calls {@code System.nanoTime} or
 * {@code System.currentTimeMillis} itself (the build checks it).
 *
 * <p>Two clocks: {@link #milliseconds()}, the wall clock (ms since the epoch; it may be stepped, as NTP or an operator
 * steps a host's clock), and {@link #nanoseconds()}, a monotonic clock for intervals and deadlines (its origin is
 * arbitrary; compare two readings by their difference, never with {@code <}).
 *
 * <p>{@link #SYSTEM} reads the host's clocks; {@link #of(Clock)} takes its wall clock from a {@link Clock} (a shifted
 * one in fault tests) and keeps the host's monotonic clock, as a host whose clock is stepped does.
 */
public interface Time {

    /** The host's clocks. */
    Time SYSTEM = new SystemTime(Clock.systemUTC());

    /** The wall clock, ms since the epoch. */
    long milliseconds();

    /** A monotonic clock, ns from an arbitrary origin: only differences between two readings mean something. */
    long nanoseconds();

    /**
     * Waits {@code millis} on this time (a {@code MockTime} steps itself instead). An interrupt ends the wait early and
     * stays set on the thread, for the caller's loop to see.
     */
    void sleep(long millis);

    /** The wall clock as an instant. */
    default Instant instant() {
        return Instant.ofEpochMilli(milliseconds());
    }

    /** The wall clock as a {@link Clock} in UTC, for code that takes one (java.time arithmetic, formatting). */
    default Clock clock() {
        return new TimeClock(this, ZoneOffset.UTC);
    }

    /** A time whose wall clock is {@code clock}, and whose monotonic clock and sleep are the host's. */
    static Time of(Clock clock) {
        return new SystemTime(clock);
    }

    /** {@link Time#clock()}: a {@link Clock} view of a {@link Time}'s wall clock. */
    final class TimeClock extends Clock {

        private final Time time;
        private final ZoneId zone;

        TimeClock(Time time, ZoneId zone) {
            this.time = time;
            this.zone = zone;
        }

        @Override
        public ZoneId getZone() {
            return zone;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return new TimeClock(time, zone);
        }

        @Override
        public long millis() {
            return time.milliseconds();
        }

        @Override
        public Instant instant() {
            return time.instant();
        }
    }
}

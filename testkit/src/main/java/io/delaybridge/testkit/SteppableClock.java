package io.delaybridge.testkit;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * The system clock, stepped by a test as an operator or NTP would step a host's clock; or, {@link #frozen()}, a clock
 * that moves only when stepped, for tests whose time-outs must not run out while the test waits on something else.
 */
public final class SteppableClock extends Clock {
    private final Instant frozenAt;
    private volatile Duration offset = Duration.ZERO;

    public SteppableClock() {
        this(null);
    }

    private SteppableClock(Instant frozenAt) {
        this.frozenAt = frozenAt;
    }

    /** A clock at the present instant that moves only by {@link #step(Duration)}. */
    public static SteppableClock frozen() {
        return new SteppableClock(Instant.now());
    }

    public void step(Duration by) {
        offset = offset.plus(by);
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException();
    }

    @Override
    public Instant instant() {
        return (frozenAt != null ? frozenAt : Instant.now()).plus(offset);
    }
}

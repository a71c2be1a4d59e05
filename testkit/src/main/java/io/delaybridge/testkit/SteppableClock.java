package io.delaybridge.testkit;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** The system clock, stepped by a test as an operator or NTP would step a host's clock. */
public final class SteppableClock extends Clock {
    private volatile Duration offset = Duration.ZERO;

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
        return Instant.now().plus(offset);
    }
}

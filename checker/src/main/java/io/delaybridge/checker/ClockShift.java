package io.delaybridge.checker;

import io.delaybridge.schemas.DelayText;
import java.time.Clock;
import java.time.Duration;

/**
 * Shifts a {@link FaultyBridge}'s clock by a fixed amount, so the fault campaign can show that a bridge whose clock is
 * an hour off delivers nothing early (due-ness is decided by Redis' clock). Set {@code DELAY_TEST_CLOCK_SHIFT=+1h}
 * (or {@code -1h}, {@code 90s}, milliseconds) in its environment, or the system property
 * {@code delay.test.clock.shift}. Unset, the clock is returned as is.
 *
 * <p>Where libfaketime is installed, {@code faketime -f '+1h' java ...} shifts the whole process instead.
 */
public final class ClockShift {

    private ClockShift() {}

    /** {@code clock}, offset by the configured shift, if any. */
    public static Clock apply(Clock clock) {
        String value = System.getProperty("delay.test.clock.shift", System.getenv("DELAY_TEST_CLOCK_SHIFT"));
        Duration shift = parse(value);
        return shift.isZero() ? clock : Clock.offset(clock, shift);
    }

    static Duration parse(String value) {
        if (value == null || value.isBlank()) {
            return Duration.ZERO;
        }
        String text = value.trim();
        boolean negative = text.startsWith("-");
        if (negative || text.startsWith("+")) {
            text = text.substring(1);
        }
        Duration shift = Duration.ofMillis(DelayText.parseDelayMillis(text));
        return negative ? shift.negated() : shift;
    }
}

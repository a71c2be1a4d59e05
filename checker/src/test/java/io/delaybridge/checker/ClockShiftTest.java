package io.delaybridge.checker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class ClockShiftTest {

    @Test
    void parsesSignedDelays() {
        assertEquals(Duration.ofHours(1), ClockShift.parse("+1h"));
        assertEquals(Duration.ofHours(-1), ClockShift.parse("-1h"));
        assertEquals(Duration.ofMillis(1500), ClockShift.parse("1500"));
        assertEquals(Duration.ZERO, ClockShift.parse(null));
    }

    @Test
    void shiftsTheClockOnlyWhenSet() {
        Clock fixed = Clock.fixed(Instant.parse("2026-11-22T08:00:00Z"), ZoneOffset.UTC);
        assertSame(fixed, ClockShift.apply(fixed));
        System.setProperty("delay.test.clock.shift", "-1h");
        try {
            assertEquals(
                    Instant.parse("2026-11-22T07:00:00Z"),
                    ClockShift.apply(fixed).instant());
        } finally {
            System.clearProperty("delay.test.clock.shift");
        }
    }
}

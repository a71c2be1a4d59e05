package io.delaybridge.bridge.thaw;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.delaybridge.bridge.store.FarEntry;
import org.junit.jupiter.api.Test;

/** The thaw runs every cycle, and sooner when the window is about to reach the start of a far hour. */
class ThawTimingTest {

    private static final long HOUR = FarEntry.HOUR_MILLIS;

    @Test
    void aCycleEndsEarlyWhenTheWindowReachesTheNextHour() {
        long window = 10 * 60_000;
        long hourStart = 1_000 * HOUR;
        assertEquals(1_000, ThawLoop.nextCycleMillis(hourStart - window - 5_000, window, 1_000), "far from it");
        assertEquals(300, ThawLoop.nextCycleMillis(hourStart - window - 300, window, 1_000), "the hour enters soon");
        assertEquals(1_000, ThawLoop.nextCycleMillis(hourStart - window, window, 1_000), "it just entered");
        assertEquals(1_000, ThawLoop.nextCycleMillis(hourStart - 300, -1, 1_000), "window off: every hour is due");
    }
}

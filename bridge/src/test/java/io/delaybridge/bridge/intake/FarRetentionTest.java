package io.delaybridge.bridge.intake;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

class FarRetentionTest {

    private static final long HOUR = 3_600_000L;
    private static final long DAY = 24 * HOUR;

    @Test
    void timeRetentionBoundsTheDelayThatMayWaitFarWithTheMargin() {
        FarRetention retention = FarRetention.of(
                "delay-intake",
                Map.of("cleanup.policy", "delete", "retention.ms", Long.toString(7 * DAY), "retention.bytes", "-1"),
                HOUR);
        assertTrue(retention.on());
        assertNull(retention.reason());
        long t = 1_000_000_000_000L;
        assertTrue(retention.mayWaitFar(t, t + 6 * DAY), "6 days due in a 7-day log");
        assertTrue(retention.mayWaitFar(t, t + 7 * DAY - HOUR), "exactly the margin left");
        assertFalse(retention.mayWaitFar(t, t + 7 * DAY - HOUR + 1), "less than the margin left: stays hot");
        assertFalse(retention.mayWaitFar(-1, t + DAY), "an unknown timestamp stays hot");
    }

    @Test
    void infiniteRetentionAndTieredStorageKeepEverything() {
        FarRetention retention = FarRetention.of(
                "delay-intake",
                Map.of(
                        "retention.ms",
                        "-1",
                        "remote.storage.enable",
                        "true",
                        "local.retention.ms",
                        Long.toString(HOUR)),
                HOUR);
        assertTrue(retention.mayWaitFar(0, 365 * DAY), "local.retention.ms does not bound what a fetch can read");
    }

    @Test
    void compactionOrSizeRetentionTurnTheFarTierOffNamingTheSetting() {
        FarRetention compacted = FarRetention.of("delay-intake", Map.of("cleanup.policy", "compact,delete"), HOUR);
        assertFalse(compacted.on());
        assertTrue(
                compacted.reason().contains("cleanup.policy=compact,delete")
                        && compacted.reason().contains("cleanup.policy=delete"),
                compacted.reason());
        assertFalse(compacted.mayWaitFar(0, HOUR));

        FarRetention sized = FarRetention.of("delay-intake", Map.of("retention.bytes", "1073741824"), HOUR);
        assertFalse(sized.on());
        assertTrue(
                sized.reason().contains("retention.bytes=1073741824")
                        && sized.reason().contains("retention.bytes=-1"),
                sized.reason());
    }

    @Test
    void aBrokerDefaultIsSevenDaysAndGarbageIsAClearError() {
        assertTrue(FarRetention.of("t", Map.of(), HOUR).mayWaitFar(0, 6 * DAY));
        assertFalse(FarRetention.of("t", Map.of(), HOUR).mayWaitFar(0, 7 * DAY));
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class, () -> FarRetention.of("t", Map.of("retention.ms", "soon"), HOUR));
        assertTrue(e.getMessage().contains("retention.ms") && e.getMessage().contains("soon"));
    }
}

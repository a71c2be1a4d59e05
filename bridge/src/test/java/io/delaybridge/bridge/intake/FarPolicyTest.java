package io.delaybridge.bridge.intake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.bridge.store.FarEntry;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FarPolicyTest {

    private static final long NOW = 1_700_000_000_000L;
    private static final long MINUTE = 60_000L;
    private static final long HOUR = 60 * MINUTE;
    private static final long DAY = 24 * HOUR;
    private static final Clock CLOCK = Clock.fixed(Instant.ofEpochMilli(NOW), ZoneOffset.UTC);

    private static FarRetention sevenDays() {
        return FarRetention.of(
                "delay-intake",
                Map.of("cleanup.policy", "delete", "retention.ms", Long.toString(7 * DAY), "retention.bytes", "-1"),
                HOUR);
    }

    private static FarPolicy tenMinutes(FarRetention retention) {
        FarPolicy policy = new FarPolicy(10 * MINUTE, CLOCK);
        policy.retention(retention);
        return policy;
    }

    @Test
    void aRecordDueBeyondTheWindowWithinRetentionGoesFar() {
        FarPolicy policy = tenMinutes(sevenDays());
        assertTrue(policy.enabled());
        assertTrue(policy.far(3, 42, NOW, NOW + DAY));
        assertTrue(policy.far(3, 42, NOW, NOW + 10 * MINUTE + 1), "just beyond the window");
        assertFalse(policy.far(3, 42, NOW, NOW + 10 * MINUTE), "exactly the window: hot");
        assertFalse(policy.far(3, 42, NOW, NOW + MINUTE), "within the window: hot");
        assertFalse(policy.far(3, 42, NOW, NOW - MINUTE), "already due: hot");
    }

    @Test
    void theWindowCountsFromNowNotFromTheRecordsTimestamp() {
        FarPolicy policy = tenMinutes(sevenDays());
        long writtenAnHourAgo = NOW - HOUR;
        assertFalse(
                policy.far(0, 1, writtenAnHourAgo, NOW + 5 * MINUTE),
                "a 65-minute delay read late is due in 5 minutes");
        assertTrue(policy.far(0, 1, writtenAnHourAgo, NOW + 11 * MINUTE));
    }

    @Test
    void aRecordDueBeyondWhatRetentionKeepsStaysHot() {
        FarPolicy policy = tenMinutes(sevenDays());
        assertTrue(policy.far(0, 1, NOW, NOW + 7 * DAY - HOUR), "retention less the margin: far");
        assertFalse(policy.far(0, 1, NOW, NOW + 7 * DAY - HOUR + 1), "beyond it: hot");
        assertFalse(policy.far(0, 1, -1, NOW + DAY), "an unknown timestamp: hot");
    }

    @Test
    void withTheWindowOffOrRetentionNotReadOrRetentionOffEverythingStaysHot() {
        FarPolicy off = new FarPolicy(FarPolicy.OFF, CLOCK);
        off.retention(sevenDays());
        assertFalse(off.far(0, 1, NOW, NOW + DAY));
        assertFalse(off.enabled());
        assertTrue(off.state().contains("intake.hotWindow is off"), off.state());

        FarPolicy unread = new FarPolicy(10 * MINUTE, CLOCK);
        assertFalse(unread.far(0, 1, NOW, NOW + DAY), "before the first reading of retention");
        assertFalse(unread.enabled());
        assertTrue(unread.state().startsWith("off until the intake topic's retention is read"), unread.state());

        FarPolicy compacted = tenMinutes(FarRetention.of("delay-intake", Map.of("cleanup.policy", "compact"), HOUR));
        assertFalse(compacted.far(0, 1, NOW, NOW + DAY));
        assertFalse(compacted.enabled());
        assertTrue(compacted.state().startsWith("off: cleanup.policy=compact"), compacted.state());

        FarPolicy sized = tenMinutes(FarRetention.of("delay-intake", Map.of("retention.bytes", "1000000"), HOUR));
        assertFalse(sized.far(0, 1, NOW, NOW + DAY));
        assertTrue(sized.state().contains("retention.bytes=1000000"), sized.state());
    }

    @Test
    void aNewRetentionDecidesFromTheNextRecordOn() {
        FarPolicy policy = tenMinutes(sevenDays());
        assertTrue(policy.far(0, 1, NOW, NOW + DAY));
        policy.retention(FarRetention.of("delay-intake", Map.of("retention.bytes", "1"), HOUR));
        assertFalse(policy.far(0, 2, NOW, NOW + DAY));
        policy.retention(sevenDays());
        assertTrue(policy.far(0, 3, NOW, NOW + DAY));
    }

    @Test
    void aZeroWindowSendsEveryRecordNotYetDueFar() {
        FarPolicy policy = new FarPolicy(0, CLOCK);
        policy.retention(sevenDays());
        assertTrue(policy.far(0, 1, NOW, NOW + 1));
        assertFalse(policy.far(0, 1, NOW, NOW), "due now: hot");
    }

    @Test
    void aPositionThatDoesNotFitAnEntryStaysHot() {
        FarPolicy policy = tenMinutes(sevenDays());
        assertTrue(policy.far(0xFFFF, FarEntry.MAX_OFFSET, NOW, NOW + DAY));
        assertFalse(policy.far(0x10000, 1, NOW, NOW + DAY), "partition beyond 2 bytes");
        assertFalse(policy.far(0, FarEntry.MAX_OFFSET + 1, NOW, NOW + DAY), "offset beyond 6 bytes");
    }

    @Test
    void theStateSaysTheRuleAndWhenRetentionIsTooShortForAnyRecord() {
        FarPolicy policy = tenMinutes(sevenDays());
        assertEquals(
                "on: records due more than 10m ahead (intake.hotWindow) wait in the log of delay-intake if due within"
                        + " 7d (retention.ms) less 1h (intake.farRetentionMargin) of their timestamp",
                policy.state());
        assertFalse(policy.takesNone());

        policy.retention(FarRetention.of("delay-intake", Map.of("retention.ms", Long.toString(HOUR)), HOUR));
        assertTrue(policy.enabled());
        assertTrue(policy.takesNone(), "an hour's retention less an hour's margin keeps nothing beyond 10 minutes");
        assertTrue(policy.state().contains("no record qualifies"), policy.state());

        policy.retention(FarRetention.of("delay-intake", Map.of("retention.ms", "-1"), HOUR));
        assertFalse(policy.takesNone());
        assertTrue(policy.state().contains("keeps every record"), policy.state());
        assertTrue(policy.far(0, 1, NOW, NOW + 365 * DAY));
    }
}

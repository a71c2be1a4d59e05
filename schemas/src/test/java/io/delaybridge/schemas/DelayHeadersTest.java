package io.delaybridge.schemas;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class DelayHeadersTest {

    @Test
    void namesAreTheDocumentedContract() {
        assertEquals("delay-", DelayHeaders.PREFIX);
        assertEquals("delay-target", DelayHeaders.TARGET);
        assertEquals("delay-ms", DelayHeaders.DELAY_MS);
        assertEquals("delay-until", DelayHeaders.UNTIL);
        assertEquals("delay-id", DelayHeaders.ID);
        assertEquals("delay-cancel", DelayHeaders.CANCEL);
        assertEquals("delay-partition", DelayHeaders.PARTITION);
        assertEquals("delay-due-at", DelayHeaders.DUE_AT);
        assertEquals("delay-origin", DelayHeaders.ORIGIN);
        assertEquals("delay-attempt", DelayHeaders.ATTEMPT);
        assertEquals("delay-error", DelayHeaders.ERROR);
        assertEquals("delay-error-message", DelayHeaders.ERROR_MESSAGE);
    }

    @Test
    void controlMeansThePrefixCaseSensitively() {
        for (String name : List.of("delay-target", "delay-msec", "delay-", "delay-due-at")) {
            assertTrue(DelayHeaders.isControl(name), name);
        }
        for (String name : List.of("traceparent", "Delay-ms", "delay", "x-delay-ms", "")) {
            assertFalse(DelayHeaders.isControl(name), name);
        }
        assertFalse(DelayHeaders.isControl(null));
    }

    @Test
    void provenanceIsWhatTheBridgeAdds() {
        for (String name : List.of(
                "delay-due-at",
                "delay-origin",
                "delay-attempt",
                "delay-error",
                "delay-error-message",
                "delay-occurrence",
                "delay-series")) {
            assertTrue(DelayHeaders.isProvenance(name), name);
        }
        for (String name : List.of(
                "delay-id",
                "delay-target",
                "delay-ms",
                "delay-until",
                "delay-cancel",
                "delay-partition",
                "delay-errors",
                "traceparent")) {
            assertFalse(DelayHeaders.isProvenance(name), name);
        }
        assertFalse(DelayHeaders.isProvenance(null));
    }

    @Test
    void errorCodeNamesAreStable() {
        assertEquals(
                List.of(
                        "MISSING_TARGET",
                        "INVALID_TARGET",
                        "TARGET_FORBIDDEN",
                        "MISSING_DELAY",
                        "CONFLICTING_DELAY",
                        "INVALID_DELAY",
                        "DELAY_TOO_LONG",
                        "INVALID_ID",
                        "INVALID_PARTITION",
                        "INVALID_CANCEL",
                        "INVALID_HEADER",
                        "DUPLICATE_HEADER",
                        "UNKNOWN_HEADER",
                        "PAYLOAD_TOO_LARGE",
                        "DELIVERY_FAILED",
                        "CORRUPT_ENVELOPE",
                        "MISSING_KEY",
                        "MISSING_FIELD",
                        "INVALID_VALUE",
                        "CONFLICTING_SCHEDULE",
                        "MISSING_SCHEDULE",
                        "INVALID_CRON",
                        "INVALID_INTERVAL",
                        "MISSING_ZONE",
                        "INVALID_ZONE",
                        "ZONE_WITH_INTERVAL",
                        "MISSING_SERIES_ID",
                        "INVALID_END",
                        "INVALID_COUNT",
                        "EMPTY_SERIES",
                        "INVALID_DST_GAP",
                        "INVALID_DST_OVERLAP",
                        "INVALID_MISSED"),
                java.util.Arrays.stream(ErrorCode.values()).map(Enum::name).toList());
    }
}

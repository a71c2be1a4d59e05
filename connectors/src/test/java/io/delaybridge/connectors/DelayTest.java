package io.delaybridge.connectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.schemas.DelayText;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.Test;

class DelayTest {

    @Test
    void durationRendersAsIntegerMillisInDelayMs() {
        Delay d = Delay.of(Duration.ofMinutes(30));
        assertEquals(DelayHeaders.DELAY_MS, d.headerName());
        assertEquals("1800000", d.headerValue());
        assertFalse(d.isAbsolute());
    }

    @Test
    void ofMillisRendersTheSameNumber() {
        assertEquals("250", Delay.ofMillis(250).headerValue());
        assertEquals("0", Delay.ofMillis(0).headerValue());
        assertEquals(Delay.of(Duration.ofMillis(250)), Delay.ofMillis(250));
    }

    @Test
    void instantRendersAsEpochMillisInDelayUntil() {
        Delay d = Delay.until(Instant.parse("2026-11-22T08:00:00Z"));
        assertEquals(DelayHeaders.UNTIL, d.headerName());
        assertEquals("1795334400000", d.headerValue());
        assertTrue(d.isAbsolute());
    }

    @Test
    void theBridgeReadsBackWhatWasRendered() {
        Duration odd = Duration.ofHours(49).plusMillis(7);
        assertEquals(odd.toMillis(), DelayText.parseDelayMillis(Delay.of(odd).headerValue()));
        Instant at = Instant.parse("2031-02-03T04:05:06.789Z");
        assertEquals(
                at.toEpochMilli(), DelayText.parseInstantMillis(Delay.until(at).headerValue()));
    }

    @Test
    void subMillisecondPartsAreDropped() {
        assertEquals("1", Delay.of(Duration.ofNanos(1_999_999)).headerValue());
        assertEquals("1000", Delay.until(Instant.ofEpochSecond(1, 999_999)).headerValue());
    }

    @Test
    void toHeaderCarriesNameAndUtf8Value() {
        Header h = Delay.ofMillis(1500).toHeader();
        assertEquals("delay-ms", h.key());
        assertEquals("1500", new String(h.value(), StandardCharsets.UTF_8));
    }

    @Test
    void negativeDelaysAreRejected() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Delay.ofMillis(-1));
        assertTrue(e.getMessage().contains("negative"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Delay.of(Duration.ofSeconds(-5)));
        assertTrue(e.getMessage().contains("PT-5S") && e.getMessage().contains("negative"), e.getMessage());
    }

    @Test
    void nullsAreRejectedWithIllegalArgument() {
        assertThrows(IllegalArgumentException.class, () -> Delay.of(null));
        assertThrows(IllegalArgumentException.class, () -> Delay.until(null));
    }

    @Test
    void delaysBeyondLongMillisAreRejected() {
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> Delay.of(Duration.ofSeconds(Long.MAX_VALUE)));
        assertTrue(e.getMessage().contains("too long"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Delay.until(Instant.MAX));
    }

    @Test
    void instantsBeforeTheEpochAreRejected() {
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> Delay.until(Instant.EPOCH.minusMillis(1)));
        assertTrue(e.getMessage().contains("before 1970"), e.getMessage());
        assertEquals("0", Delay.until(Instant.EPOCH).headerValue());
    }

    @Test
    void equalityFollowsTheRenderedHeader() {
        assertEquals(Delay.ofMillis(5), Delay.ofMillis(5));
        assertEquals(Delay.ofMillis(5).hashCode(), Delay.ofMillis(5).hashCode());
        assertNotEquals(Delay.ofMillis(5), Delay.until(Instant.ofEpochMilli(5)));
    }

    @Test
    void toStringIsReadable() {
        assertEquals("Delay[30m]", Delay.of(Duration.ofMinutes(30)).toString());
        assertEquals(
                "Delay[until 2026-11-22T08:00:00Z]",
                Delay.until(Instant.parse("2026-11-22T08:00:00Z")).toString());
    }
}

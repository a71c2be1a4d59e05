package io.delaybridge.schemas;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class DelayTextTest {

    @ParameterizedTest(name = "{0} -> {1} ms")
    @CsvSource(
            delimiter = '|',
            value = {
                "0            | 0",
                "1500         | 1500",
                "250ms        | 250",
                "30s          | 30000",
                "5m           | 300000",
                "2h           | 7200000",
                "7d           | 604800000",
                "0s           | 0",
                "1.5s         | 1500",
                "0.5h         | 1800000",
                "1.9999ms     | 1",
                "'30 s'       | 30000",
                "'  5m\t'     | 300000",
                "007s         | 7000",
                "PT30M        | 1800000",
                "pt30m        | 1800000",
                "PT1H30M      | 5400000",
                "P3D          | 259200000",
                "PT0.5S       | 500",
                "+PT1S        | 1000",
                "9223372036854775807 | 9223372036854775807",
            })
    void acceptedDelays(String text, long millis) {
        assertEquals(millis, DelayText.parseDelayMillis(text));
    }

    @ParameterizedTest(name = "\"{0}\" is rejected for {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "''                    | empty",
                "'   '                 | empty",
                "-5                    | negative",
                "-5s                   | negative",
                "-PT5M                 | negative",
                "PT-5M                 | negative",
                "5y                    | unknown unit \"y\"",
                "5M                    | unknown unit \"M\"",
                "5 sec                 | unknown unit \"sec\"",
                "5s5                   | unknown unit \"s5\"",
                "1.5                   | must be whole",
                "1.s                   | no digits after the decimal point",
                ".5s                   | does not start with a number",
                "abc                   | does not start with a number",
                "1e3                   | unknown unit \"e3\"",
                "P1M                   | not an ISO-8601 duration",
                "P1Y                   | not an ISO-8601 duration",
                "9223372036854775808   | too large",
                "99999999999999999999  | too large",
                "106751991167301d      | too large",
                "PT9999999999999999H   | too large",
                "PT10000000000000000S  | too large",
            })
    void rejectedDelays(String text, String reason) {
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> DelayText.parseDelayMillis(text));
        assertTrue(e.getMessage().contains(reason), e.getMessage());
        assertTrue(e.getMessage().endsWith(DelayText.DELAY_FORMS), e.getMessage());
    }

    @Test
    void largestDayCountThatFitsIsAccepted() {
        // Long.MAX_VALUE / 86_400_000 = 106751991167 days
        assertEquals(106751991167L * 86_400_000L, DelayText.parseDelayMillis("106751991167d"));
        assertThrows(IllegalArgumentException.class, () -> DelayText.parseDelayMillis("106751991168d"));
    }

    @Test
    void nullAndOverlongInputAreRejectedWithoutParsing() {
        assertThrows(IllegalArgumentException.class, () -> DelayText.parseDelayMillis(null));
        String longDigits = "1".repeat(10_000);
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> DelayText.parseDelayMillis(longDigits));
        assertTrue(e.getMessage().contains("longer than 64"), e.getMessage());
    }

    @Test
    void messageQuotesTheValueAsGiven() {
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> DelayText.parseDelayMillis("5y"));
        assertEquals(
                "\"5y\" is not a delay: unknown unit \"y\" (ms, s, m, h, d); " + DelayText.DELAY_FORMS, e.getMessage());
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "2026-11-22T08:00:00Z          | 2026-11-22T08:00:00Z",
                "2026-11-22T09:00:00+01:00     | 2026-11-22T08:00:00Z",
                "2026-11-22T03:00:00-05:00     | 2026-11-22T08:00:00Z",
                "2026-11-22T08:00:00.123Z      | 2026-11-22T08:00:00.123Z",
                "2026-11-22T08:00:00.123999Z   | 2026-11-22T08:00:00.123Z",
                "2026-11-22T08:00Z             | 2026-11-22T08:00:00Z",
                "' 2026-11-22T08:00:00Z '      | 2026-11-22T08:00:00Z",
                "1969-12-31T23:59:59Z          | 1969-12-31T23:59:59Z",
            })
    void isoInstants(String text, String expected) {
        assertEquals(Instant.parse(expected).toEpochMilli(), DelayText.parseInstantMillis(text));
    }

    @Test
    void epochMillisInstants() {
        assertEquals(0L, DelayText.parseInstantMillis("0"));
        assertEquals(1795334400000L, DelayText.parseInstantMillis("1795334400000"));
        assertEquals(Long.MAX_VALUE, DelayText.parseInstantMillis(String.valueOf(Long.MAX_VALUE)));
    }

    @ParameterizedTest(name = "\"{0}\" is rejected for {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "''                        | empty",
                "-1000                     | negative",
                "9223372036854775808       | too large",
                "2026-11-22T08:00:00       | no offset",
                "2026-11-22                | not epoch milliseconds nor an ISO-8601 instant",
                "tomorrow                  | not epoch milliseconds nor an ISO-8601 instant",
                "2026-13-01T00:00:00Z      | not epoch milliseconds nor an ISO-8601 instant",
                "+999999999-12-31T23:59:59Z | out of range",
            })
    void rejectedInstants(String text, String reason) {
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> DelayText.parseInstantMillis(text));
        assertTrue(e.getMessage().contains(reason), e.getMessage());
        assertTrue(e.getMessage().endsWith(DelayText.INSTANT_FORMS), e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(
            longs = {
                0,
                1,
                999,
                1000,
                1500,
                60_000,
                90_000,
                3_600_000,
                86_400_000,
                7 * 86_400_000L,
                25 * 3_600_000L,
                Long.MAX_VALUE
            })
    void formatMillisReadsBack(long millis) {
        assertEquals(millis, DelayText.parseDelayMillis(DelayText.formatMillis(millis)));
    }

    @Test
    void formatMillisPicksTheLargestExactUnit() {
        assertEquals("7d", DelayText.formatMillis(7 * 86_400_000L));
        assertEquals("25h", DelayText.formatMillis(25 * 3_600_000L));
        assertEquals("90s", DelayText.formatMillis(90_000));
        assertEquals("1500ms", DelayText.formatMillis(1500));
        assertEquals("0ms", DelayText.formatMillis(0));
    }
}

package io.delaybridge.schemas;

import static io.delaybridge.schemas.SeriesPump.headers;
import static io.delaybridge.schemas.SeriesPump.ms;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SeriesHeadersTest {

    static final long TS = ms("2026-11-22T08:00:00Z");

    static Series parse(String... nameValue) throws ContractViolation {
        return SeriesHeaders.parse(headers(nameValue), TS).orElseThrow();
    }

    static ContractViolation reject(ErrorCode code, String... nameValue) {
        ContractViolation v = assertThrows(ContractViolation.class, () -> SeriesHeaders.parse(headers(nameValue), TS));
        assertEquals(code, v.code(), v.getMessage());
        return v;
    }

    @Test
    void aCronSeriesWithItsDefaults() throws ContractViolation {
        Series s = parse(
                "delay-target",
                "reports",
                "delay-id",
                "nightly",
                "delay-cron",
                "30 2 * * *",
                "delay-zone",
                "Europe/Berlin");
        assertEquals("nightly", s.id());
        Series.Cron cron = (Series.Cron) s.recurrence();
        assertEquals("30 2 * * *", cron.schedule().expression());
        assertEquals(ZoneId.of("Europe/Berlin"), cron.zone());
        assertEquals(Series.DstGap.SHIFT, cron.gap());
        assertEquals(Series.DstOverlap.ONCE, cron.overlap());
        assertEquals(Series.Missed.ONE, s.missed());
        assertEquals(TS, s.startMillis(), "no delay-until: the record timestamp");
        assertEquals(Series.UNBOUNDED, s.endMillis());
        assertEquals(Series.UNBOUNDED, s.count());
    }

    @Test
    void everyOptionParsed() throws ContractViolation {
        Series s = parse(
                "delay-id",
                "x",
                "delay-cron",
                " 0 0 9 * * MON-FRI ",
                "delay-zone",
                "America/New_York",
                "delay-until",
                "2027-01-01T00:00:00Z",
                "delay-end",
                "2027-12-31T23:59:59Z",
                "delay-count",
                "100",
                "delay-dst-gap",
                "skip",
                "delay-dst-overlap",
                "twice",
                "delay-missed",
                "all");
        Series.Cron cron = (Series.Cron) s.recurrence();
        assertEquals(Series.DstGap.SKIP, cron.gap());
        assertEquals(Series.DstOverlap.TWICE, cron.overlap());
        assertEquals(Series.Missed.ALL, s.missed());
        assertEquals(ms("2027-01-01T00:00:00Z"), s.startMillis());
        assertEquals(ms("2027-12-31T23:59:59Z"), s.endMillis());
        assertEquals(100, s.count());
        assertTrue(cron.schedule().hasSeconds() == false, "second 0 only");
    }

    @Test
    void anIntervalStartsOneIntervalAfterTheRecordOrAtItsUntil() throws ContractViolation {
        Series s = parse("delay-id", "x", "delay-every", "15m");
        assertEquals(new Series.Every(Duration.ofMinutes(15).toMillis()), s.recurrence());
        assertEquals(TS + Duration.ofMinutes(15).toMillis(), s.startMillis());
        assertEquals(
                ms("2026-12-01T00:00:00Z"),
                parse("delay-id", "x", "delay-every", "PT1H", "delay-until", "2026-12-01T00:00:00Z")
                        .startMillis());
    }

    @Test
    void anUntilBeforeTheRecordCountsFromTheRecordKeepingAnIntervalsPhase() throws ContractViolation {
        assertEquals(
                TS,
                parse(
                                "delay-id",
                                "x",
                                "delay-cron",
                                "* * * * * *",
                                "delay-zone",
                                "UTC",
                                "delay-until",
                                "2000-01-01T00:00:00Z")
                        .startMillis());
        assertEquals(
                ms("2026-11-22T08:30:00Z"),
                parse("delay-id", "x", "delay-every", "1h", "delay-until", "2026-11-22T06:30:00Z")
                        .startMillis());
        assertEquals(
                TS,
                parse("delay-id", "x", "delay-every", "1h", "delay-until", "2026-11-22T07:00:00Z")
                        .startMillis(),
                "on the grid");
    }

    @Test
    void aOneShotRecordIsNoSeries() throws ContractViolation {
        assertEquals(
                Optional.empty(),
                SeriesHeaders.parse(headers("delay-target", "t", "delay-ms", "30s", "delay-id", "a"), TS));
        assertEquals(Optional.empty(), SeriesHeaders.parse(null, TS));
    }

    @Test
    void conflictingSchedules() {
        reject(
                ErrorCode.CONFLICTING_SCHEDULE,
                "delay-id",
                "x",
                "delay-cron",
                "* * * * *",
                "delay-every",
                "1m",
                "delay-zone",
                "UTC");
        reject(ErrorCode.CONFLICTING_SCHEDULE, "delay-id", "x", "delay-every", "1m", "delay-ms", "30s");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {"delay-zone", "delay-end", "delay-count", "delay-dst-gap", "delay-dst-overlap", "delay-missed"})
    void aSeriesHeaderWithoutCronOrEvery(String name) {
        ContractViolation v = reject(ErrorCode.MISSING_SCHEDULE, "delay-id", "x", "delay-ms", "1s", name, "1");
        assertTrue(v.getMessage().startsWith(name + ": "), v.getMessage());
    }

    @Test
    void missingAndBadIds() {
        reject(ErrorCode.MISSING_SERIES_ID, "delay-cron", "* * * * *", "delay-zone", "UTC");
        reject(ErrorCode.INVALID_ID, "delay-id", " ", "delay-cron", "* * * * *", "delay-zone", "UTC");
        reject(ErrorCode.INVALID_ID, "delay-id", "x".repeat(513), "delay-every", "1m");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "",
                "* * * *",
                "* * * * * * *",
                "60 * * * *",
                "* 24 * * *",
                "* * 0 * *",
                "* * * 13 *",
                "* * * * 8",
                "5-1 * * * *",
                "*/0 * * * *",
                "0 9 L * *",
                "0 9 * * 5#2",
                "@daily",
                "0 9 30 2 *",
                "0 9 31 4,6,9,11 *",
                "a * * * *",
                "1,,2 * * * *",
                "? * * * *"
            })
    void badCron(String cron) {
        ContractViolation v = reject(ErrorCode.INVALID_CRON, "delay-id", "x", "delay-cron", cron, "delay-zone", "UTC");
        assertTrue(v.getMessage().startsWith("delay-cron: "), v.getMessage());
    }

    @Test
    void cronMessagesSayWhatIsWrong() {
        assertEquals(
                "delay-cron: \"0 9 30 2 *\" is not a cron expression: never matches: no month of the expression"
                        + " has day 30; " + CronSchedule.FORMS,
                reject(ErrorCode.INVALID_CRON, "delay-id", "x", "delay-cron", "0 9 30 2 *", "delay-zone", "UTC")
                        .getMessage());
        assertEquals(
                "delay-cron: \"0 25 * * *\" is not a cron expression: hour \"25\": not a hour value; use 0-23; "
                        + CronSchedule.FORMS,
                reject(ErrorCode.INVALID_CRON, "delay-id", "x", "delay-cron", "0 25 * * *", "delay-zone", "UTC")
                        .getMessage());
    }

    @Test
    void zones() throws ContractViolation {
        reject(ErrorCode.MISSING_ZONE, "delay-id", "x", "delay-cron", "0 9 * * *");
        for (String zone : List.of("Europe/Berln", "+01:00", "Z", "UTC+1", "GMT-5", "", "CET/Berlin")) {
            reject(ErrorCode.INVALID_ZONE, "delay-id", "x", "delay-cron", "0 9 * * *", "delay-zone", zone);
        }
        for (String zone : List.of("UTC", "Etc/UTC", "Asia/Kolkata", "Australia/Lord_Howe")) {
            assertEquals(
                    ZoneId.of(zone),
                    ((Series.Cron) parse("delay-id", "x", "delay-cron", "0 9 * * *", "delay-zone", zone)
                                    .recurrence())
                            .zone());
        }
    }

    @Test
    void aZoneOrDstChoiceWithAnIntervalIsRefused() {
        reject(ErrorCode.ZONE_WITH_INTERVAL, "delay-id", "x", "delay-every", "24h", "delay-zone", "Europe/Berlin");
        reject(ErrorCode.ZONE_WITH_INTERVAL, "delay-id", "x", "delay-every", "24h", "delay-dst-gap", "skip");
        reject(ErrorCode.ZONE_WITH_INTERVAL, "delay-id", "x", "delay-every", "24h", "delay-dst-overlap", "once");
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "999ms", "0.5s", "-1s", "5y", "", "1.5"})
    void badIntervals(String every) {
        reject(ErrorCode.INVALID_INTERVAL, "delay-id", "x", "delay-every", every);
    }

    @Test
    void boundsAndChoices() {
        reject(ErrorCode.INVALID_DELAY, "delay-id", "x", "delay-every", "1m", "delay-until", "tomorrow");
        reject(ErrorCode.INVALID_END, "delay-id", "x", "delay-every", "1m", "delay-end", "2027-01-01T00:00");
        for (String count : List.of("0", "-1", "1.5", "", "ten", "9999999999999999999")) {
            reject(ErrorCode.INVALID_COUNT, "delay-id", "x", "delay-every", "1m", "delay-count", count);
        }
        reject(
                ErrorCode.INVALID_DST_GAP,
                "delay-id",
                "x",
                "delay-cron",
                "0 9 * * *",
                "delay-zone",
                "UTC",
                "delay-dst-gap",
                "later");
        reject(
                ErrorCode.INVALID_DST_OVERLAP,
                "delay-id",
                "x",
                "delay-cron",
                "0 9 * * *",
                "delay-zone",
                "UTC",
                "delay-dst-overlap",
                "TWICE ");
        ContractViolation v =
                reject(ErrorCode.INVALID_MISSED, "delay-id", "x", "delay-every", "1m", "delay-missed", "none");
        assertEquals("delay-missed: \"none\" is not one of one, all, skip (default one)", v.getMessage());
    }

    @Test
    void aSeriesWithNoOccurrenceIsRefused() throws ContractViolation {
        reject(
                ErrorCode.EMPTY_SERIES,
                "delay-id",
                "x",
                "delay-every",
                "1m",
                "delay-until",
                "2027-01-01T00:00:00Z",
                "delay-end",
                "2026-12-31T00:00:00Z");
        // no delay-until: an interval starts one interval after the record
        reject(ErrorCode.EMPTY_SERIES, "delay-id", "x", "delay-every", "1h", "delay-end", "2026-11-22T08:30:00Z");
        // end after the start, but before the first match
        ContractViolation v = reject(
                ErrorCode.EMPTY_SERIES,
                "delay-id",
                "x",
                "delay-cron",
                "0 9 1 * *",
                "delay-zone",
                "UTC",
                "delay-end",
                "2026-11-30T00:00:00Z");
        assertTrue(v.getMessage().contains("first occurrence"), v.getMessage());
        // exactly one occurrence, on the end
        assertEquals(
                ms("2026-12-01T09:00:00Z"),
                SeriesPlanner.first(parse(
                                "delay-id",
                                "x",
                                "delay-cron",
                                "0 9 1 * *",
                                "delay-zone",
                                "UTC",
                                "delay-end",
                                "2026-12-01T09:00:00Z"))
                        .dueAtMillis());
    }

    @Test
    void headerLevelProblems() {
        RecordHeaders h = headers("delay-id", "x", "delay-every", "1m");
        h.add("delay-every", "2m".getBytes(StandardCharsets.UTF_8));
        assertEquals(
                ErrorCode.DUPLICATE_HEADER,
                assertThrows(ContractViolation.class, () -> SeriesHeaders.parse(h, TS))
                        .code());
        RecordHeaders bad = headers("delay-id", "x");
        bad.add("delay-cron", new byte[] {(byte) 0xC3, (byte) 0x28});
        assertEquals(
                ErrorCode.INVALID_HEADER,
                assertThrows(ContractViolation.class, () -> SeriesHeaders.parse(bad, TS))
                        .code());
    }

    @Test
    void theParserAloneRefusesASeriesRecordAsAnUnknownHeader() {
        // a caller that reads series (SeriesRecord.read) does so before the parser; one that does not must never
        // deliver a recurring record once with its recurrence dropped
        IntakeParser intake = new IntakeParser(
                new TargetPolicy("delay-intake", "delay-deadletter", List.of()),
                Duration.ofDays(365).toMillis());
        for (String name : SeriesHeaders.NAMES) {
            ContractViolation v = assertThrows(
                    ContractViolation.class,
                    () -> intake.parse(
                            headers(
                                    "delay-target",
                                    "t",
                                    "delay-id",
                                    "x",
                                    "delay-until",
                                    "2026-12-01T00:00:00Z",
                                    name,
                                    "1"),
                            TS,
                            "d"));
            assertEquals(ErrorCode.UNKNOWN_HEADER, v.code(), name);
        }
    }
}

package io.delaybridge.schemas;

import static io.delaybridge.schemas.SeriesPump.ms;
import static io.delaybridge.schemas.SeriesPump.series;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Cron series across the spring-forward and fall-back days of Europe/Berlin (2026-03-29 02:00 -> 03:00, 2026-10-25
 * 03:00 -> 02:00) and America/New_York (2026-03-08 02:00 -> 03:00, 2026-11-01 02:00 -> 01:00), for each gap and
 * overlap choice. Every expectation is an exact instant, written with the offset in force.
 */
class SeriesDstTest {

    private static List<Long> run(String cron, String zone, String gap, String overlap, String from, String until) {
        Series s = series(
                ms(from),
                "delay-id",
                "s",
                "delay-cron",
                cron,
                "delay-zone",
                zone,
                "delay-dst-gap",
                gap,
                "delay-dst-overlap",
                overlap);
        return new SeriesPump(s, ms(from)).runUntil(ms(until)).dueTimes();
    }

    @Test
    void berlinSpringForwardShiftRunsAtTheJump() {
        assertEquals(
                ms("2026-03-28T02:30+01:00", "2026-03-29T03:00+02:00", "2026-03-30T02:30+02:00"),
                run(
                        "30 2 * * *",
                        "Europe/Berlin",
                        "shift",
                        "once",
                        "2026-03-28T00:00+01:00",
                        "2026-03-30T12:00+02:00"));
        assertEquals(ms("2026-03-29T01:00Z"), ms("2026-03-29T03:00+02:00"), "the jump instant itself");
    }

    @Test
    void berlinSpringForwardSkipLeavesTheDayOut() {
        assertEquals(
                ms("2026-03-28T02:30+01:00", "2026-03-30T02:30+02:00"),
                run("30 2 * * *", "Europe/Berlin", "skip", "once", "2026-03-28T00:00+01:00", "2026-03-30T12:00+02:00"));
    }

    @Test
    void berlinFallBackOnceTakesTheFirstOfTheTwo() {
        assertEquals(
                ms("2026-10-24T02:30+02:00", "2026-10-25T02:30+02:00", "2026-10-26T02:30+01:00"),
                run(
                        "30 2 * * *",
                        "Europe/Berlin",
                        "shift",
                        "once",
                        "2026-10-24T00:00+02:00",
                        "2026-10-26T12:00+01:00"));
    }

    @Test
    void berlinFallBackTwiceTakesBothAnHourApart() {
        assertEquals(
                ms(
                        "2026-10-24T02:30+02:00",
                        "2026-10-25T02:30+02:00",
                        "2026-10-25T02:30+01:00",
                        "2026-10-26T02:30+01:00"),
                run(
                        "30 2 * * *",
                        "Europe/Berlin",
                        "shift",
                        "twice",
                        "2026-10-24T00:00+02:00",
                        "2026-10-26T12:00+01:00"));
    }

    @Test
    void newYorkFallBackOnceAndTwiceAtOneAndOneThirty() {
        String from = "2026-10-31T12:00-04:00";
        String until = "2026-11-02T12:00-05:00";
        assertEquals(
                ms("2026-11-01T01:00-04:00", "2026-11-02T01:00-05:00"),
                run("0 1 * * *", "America/New_York", "shift", "once", from, until));
        assertEquals(
                ms("2026-11-01T01:00-04:00", "2026-11-01T01:00-05:00", "2026-11-02T01:00-05:00"),
                run("0 1 * * *", "America/New_York", "shift", "twice", from, until));
        assertEquals(
                ms("2026-11-01T06:00Z"), ms("2026-11-01T01:00-05:00"), "the second 01:00 is the fall-back instant");
        assertEquals(
                ms("2026-11-01T01:30-04:00", "2026-11-02T01:30-05:00"),
                run("30 1 * * *", "America/New_York", "skip", "once", from, until));
        assertEquals(
                ms("2026-11-01T01:30-04:00", "2026-11-01T01:30-05:00", "2026-11-02T01:30-05:00"),
                run("30 1 * * *", "America/New_York", "skip", "twice", from, until));
    }

    @Test
    void newYorkSpringForwardOneAndOneThirtyAreUntouchedAndTwoThirtyShiftsOrSkips() {
        String from = "2026-03-07T12:00-05:00";
        String until = "2026-03-09T12:00-04:00";
        assertEquals(
                ms("2026-03-08T01:00-05:00", "2026-03-09T01:00-04:00"),
                run("0 1 * * *", "America/New_York", "skip", "once", from, until));
        assertEquals(
                ms("2026-03-08T01:30-05:00", "2026-03-09T01:30-04:00"),
                run("30 1 * * *", "America/New_York", "skip", "twice", from, until));
        assertEquals(
                ms("2026-03-08T03:00-04:00", "2026-03-09T02:30-04:00"),
                run("30 2 * * *", "America/New_York", "shift", "once", from, until));
        assertEquals(
                List.of(ms("2026-03-09T02:30-04:00")),
                run("30 2 * * *", "America/New_York", "skip", "once", from, until));
    }

    @Test
    void matchesInsideOneGapMakeOneOccurrenceAndMergeWithTheRealThreeOClock() {
        // 02:00, 02:15, 02:30 and 02:45 do not exist; shifted, they and the real 03:00 are one instant
        String from = "2026-03-29T01:30+01:00";
        String until = "2026-03-29T03:20+02:00";
        List<Long> expected = ms(
                "2026-03-29T01:30+01:00", "2026-03-29T01:45+01:00", "2026-03-29T03:00+02:00", "2026-03-29T03:15+02:00");
        assertEquals(expected, run("*/15 * * * *", "Europe/Berlin", "shift", "once", from, until));
        assertEquals(expected, run("*/15 * * * *", "Europe/Berlin", "skip", "once", from, until));
        assertEquals(
                ms("2026-03-29T03:00+02:00", "2026-03-30T02:00+02:00"),
                run("0 2,3 * * *", "Europe/Berlin", "shift", "once", from, "2026-03-30T02:30+02:00"));
    }

    @Test
    void everyQuarterHourThroughTheRepeatedHour() {
        String from = "2026-11-01T00:50-04:00";
        String until = "2026-11-01T02:10-05:00";
        assertEquals(
                ms(
                        "2026-11-01T01:00-04:00",
                        "2026-11-01T01:15-04:00",
                        "2026-11-01T01:30-04:00",
                        "2026-11-01T01:45-04:00",
                        "2026-11-01T02:00-05:00"),
                run("*/15 * * * *", "America/New_York", "shift", "once", from, until));
        assertEquals(
                ms(
                        "2026-11-01T01:00-04:00",
                        "2026-11-01T01:15-04:00",
                        "2026-11-01T01:30-04:00",
                        "2026-11-01T01:45-04:00",
                        "2026-11-01T01:00-05:00",
                        "2026-11-01T01:15-05:00",
                        "2026-11-01T01:30-05:00",
                        "2026-11-01T01:45-05:00",
                        "2026-11-01T02:00-05:00"),
                run("*/15 * * * *", "America/New_York", "shift", "twice", from, until));
    }

    @Test
    void defaultsAreShiftAndOnce() {
        Series s = series(
                ms("2026-03-28T00:00+01:00"),
                "delay-id",
                "s",
                "delay-cron",
                "30 2 * * *",
                "delay-zone",
                "Europe/Berlin");
        Series.Cron cron = (Series.Cron) s.recurrence();
        assertEquals(Series.DstGap.SHIFT, cron.gap());
        assertEquals(Series.DstOverlap.ONCE, cron.overlap());
        assertEquals(
                ms("2026-03-28T02:30+01:00", "2026-03-29T03:00+02:00"),
                new SeriesPump(s, ms("2026-03-28T00:00+01:00"))
                        .runUntil(ms("2026-03-29T12:00+02:00"))
                        .dueTimes());
    }

    @Test
    void everyCountsElapsedTimeSoTheWallTimeMovesAnHour() {
        // 24h from 09:00 CET is 10:00 CEST on the spring-forward day: an interval is elapsed time, not wall time
        Series s = series(0, "delay-id", "s", "delay-every", "24h", "delay-until", "2026-03-28T09:00+01:00");
        assertEquals(
                ms("2026-03-28T09:00+01:00", "2026-03-29T10:00+02:00", "2026-03-30T10:00+02:00"),
                new SeriesPump(s, ms("2026-03-28T00:00+01:00"))
                        .runUntil(ms("2026-03-30T12:00+02:00"))
                        .dueTimes());
        Series fall = series(0, "delay-id", "s", "delay-every", "1h", "delay-until", "2026-11-01T00:00-04:00");
        assertEquals(
                ms(
                        "2026-11-01T00:00-04:00",
                        "2026-11-01T01:00-04:00",
                        "2026-11-01T01:00-05:00",
                        "2026-11-01T02:00-05:00"),
                new SeriesPump(fall, ms("2026-10-31T23:00-04:00"))
                        .runUntil(ms("2026-11-01T02:30-05:00"))
                        .dueTimes());
    }

    @Test
    void sixFieldsAndMillisecondStartsAreExact() {
        // first occurrence at or after a start with milliseconds: the next whole matching second
        Series s = series(
                0,
                "delay-id",
                "s",
                "delay-cron",
                "*/20 * * * * *",
                "delay-zone",
                "UTC",
                "delay-until",
                "2026-06-01T00:00:00.001Z");
        assertEquals(
                ms("2026-06-01T00:00:20Z", "2026-06-01T00:00:40Z", "2026-06-01T00:01:00Z"),
                new SeriesPump(s, ms("2026-06-01T00:00Z"))
                        .runUntil(ms("2026-06-01T00:01:00Z"))
                        .dueTimes());
    }

    @Test
    void aGapAtMidnightLosesNoDay() {
        // Africa/Cairo 2026-04-24 00:00 -> 01:00 (a case that made one library skip a whole day)
        String from = "2026-04-23T19:00+02:00";
        String until = "2026-04-24T05:00+03:00";
        assertEquals(
                ms(
                        "2026-04-23T20:00+02:00",
                        "2026-04-23T22:00+02:00",
                        "2026-04-24T01:00+03:00",
                        "2026-04-24T02:00+03:00",
                        "2026-04-24T04:00+03:00"),
                run("0 */2 * * *", "Africa/Cairo", "shift", "once", from, until));
        assertEquals(
                ms(
                        "2026-04-23T20:00+02:00",
                        "2026-04-23T22:00+02:00",
                        "2026-04-24T02:00+03:00",
                        "2026-04-24T04:00+03:00"),
                run("0 */2 * * *", "Africa/Cairo", "skip", "once", from, until));
        // America/Santiago 2026-09-06 00:00 -> 01:00: a daily midnight job
        assertEquals(
                ms("2026-09-05T00:00-04:00", "2026-09-06T01:00-03:00", "2026-09-07T00:00-03:00"),
                run(
                        "0 0 * * *",
                        "America/Santiago",
                        "shift",
                        "once",
                        "2026-09-04T12:00-04:00",
                        "2026-09-07T12:00-03:00"));
    }

    @Test
    void aHalfHourShiftOnLordHowe() {
        // Australia/Lord_Howe moves by 30 minutes: 02:00 -> 02:30 on 2026-10-04, 02:00 -> 01:30 on 2026-04-05
        assertEquals(
                ms("2026-10-04T02:30+11:00", "2026-10-05T02:15+11:00"),
                run(
                        "15 2 * * *",
                        "Australia/Lord_Howe",
                        "shift",
                        "once",
                        "2026-10-04T00:00+10:30",
                        "2026-10-05T12:00+11:00"));
        assertEquals(
                ms("2026-04-05T01:45+11:00", "2026-04-05T01:45+10:30", "2026-04-06T01:45+10:30"),
                run(
                        "45 1 * * *",
                        "Australia/Lord_Howe",
                        "shift",
                        "twice",
                        "2026-04-05T00:00+11:00",
                        "2026-04-06T12:00+10:30"));
    }
}

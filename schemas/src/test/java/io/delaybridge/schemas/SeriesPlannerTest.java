package io.delaybridge.schemas;

import static io.delaybridge.schemas.SeriesPump.ms;
import static io.delaybridge.schemas.SeriesPump.series;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Missed runs, end, count, month ends and leap days, each with exact instants and occurrence numbers. */
class SeriesPlannerTest {

    private static final String START = "2026-06-01T10:00Z";

    private static SeriesPump everyTenMinutes(String missed) {
        Series s = series(
                ms(START), "delay-id", "s", "delay-cron", "*/10 * * * *", "delay-zone", "UTC", "delay-missed", missed);
        // up until 10:20:30, then down until 11:05 (10:30 ... 11:00 pass unseen), then up until 11:25
        return new SeriesPump(s, ms(START))
                .outage(ms("2026-06-01T10:20:30Z"), ms("2026-06-01T11:05Z"))
                .runUntil(ms("2026-06-01T11:25Z"));
    }

    @Test
    void missedOneDeliversTheLatestAtOnceThenTheSchedule() {
        SeriesPump pump = everyTenMinutes("one");
        assertEquals(
                ms(
                        "2026-06-01T10:00Z",
                        "2026-06-01T10:10Z",
                        "2026-06-01T10:20Z",
                        "2026-06-01T11:00Z",
                        "2026-06-01T11:10Z",
                        "2026-06-01T11:20Z"),
                pump.dueTimes());
        assertEquals(List.of(1L, 2L, 3L, 7L, 8L, 9L), pump.numbers(), "numbers are places in the schedule");
        assertEquals(ms("2026-06-01T11:05Z"), pump.deliveries().get(3).atMillis(), "delivered when back");
        assertEquals(3, pump.skipped(), "10:30, 10:40, 10:50");
    }

    @Test
    void missedAllDeliversEveryOneInOrder() {
        SeriesPump pump = everyTenMinutes("all");
        assertEquals(
                ms(
                        "2026-06-01T10:00Z",
                        "2026-06-01T10:10Z",
                        "2026-06-01T10:20Z",
                        "2026-06-01T10:30Z",
                        "2026-06-01T10:40Z",
                        "2026-06-01T10:50Z",
                        "2026-06-01T11:00Z",
                        "2026-06-01T11:10Z",
                        "2026-06-01T11:20Z"),
                pump.dueTimes());
        assertEquals(List.of(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L), pump.numbers());
        assertEquals(0, pump.skipped());
    }

    @Test
    void missedSkipWaitsForTheNextOne() {
        SeriesPump pump = everyTenMinutes("skip");
        assertEquals(
                ms(
                        "2026-06-01T10:00Z",
                        "2026-06-01T10:10Z",
                        "2026-06-01T10:20Z",
                        "2026-06-01T11:10Z",
                        "2026-06-01T11:20Z"),
                pump.dueTimes());
        assertEquals(List.of(1L, 2L, 3L, 8L, 9L), pump.numbers());
        assertEquals(4, pump.skipped(), "10:30 ... 11:00");
    }

    @Test
    void missedSkipStillDeliversAnOccurrenceLateByLessThanTheGrace() {
        Series s = series(
                ms(START), "delay-id", "s", "delay-cron", "*/10 * * * *", "delay-zone", "UTC", "delay-missed", "skip");
        SeriesPump pump = new SeriesPump(s, ms(START)).outage(ms("2026-06-01T10:05Z"), ms("2026-06-01T10:10:59Z"));
        assertEquals(ms("2026-06-01T10:00Z", "2026-06-01T10:10Z"), pump.dueTimes());
        SeriesPump late = new SeriesPump(s, ms(START)).outage(ms("2026-06-01T10:05Z"), ms("2026-06-01T10:11:00.001Z"));
        assertEquals(List.of(ms("2026-06-01T10:00Z")), late.dueTimes());
        assertEquals(ms("2026-06-01T10:20Z"), late.pending().dueAtMillis());
    }

    @Test
    void missedAllIsBoundedToTheLatestThousand() {
        Series cron = series(
                ms(START), "delay-id", "s", "delay-cron", "* * * * * *", "delay-zone", "UTC", "delay-missed", "all");
        SeriesPump pump = new SeriesPump(cron, ms(START)).outage(ms(START), ms("2026-06-01T11:00Z"));
        assertEquals(1 + SeriesPlanner.MAX_CATCH_UP, pump.deliveries().size());
        assertEquals(3600 - SeriesPlanner.MAX_CATCH_UP, pump.skipped());
        assertEquals(ms("2026-06-01T10:43:21Z"), pump.deliveries().get(1).dueAtMillis(), "3600 - 1000 + 1 s in");
        assertEquals(2602L, pump.deliveries().get(1).number());
        assertEquals(
                ms("2026-06-01T11:00Z"),
                pump.deliveries().get(SeriesPlanner.MAX_CATCH_UP).dueAtMillis());
        assertEquals(3601L, pump.deliveries().get(SeriesPlanner.MAX_CATCH_UP).number());

        Series every = series(0, "delay-id", "s", "delay-every", "1s", "delay-until", START, "delay-missed", "all");
        SeriesPump fast = new SeriesPump(every, ms(START)).outage(ms(START), ms("2026-06-01T11:00Z"));
        assertEquals(pump.dueTimes(), fast.dueTimes(), "an interval series jumps to the same place");
        assertEquals(pump.numbers(), fast.numbers());
        assertEquals(pump.skipped(), fast.skipped());
    }

    @Test
    void anIntervalSeriesSkipsADayLongOutageByArithmetic() {
        Series every = series(0, "delay-id", "s", "delay-every", "1s", "delay-until", START);
        SeriesPump pump = new SeriesPump(every, ms(START)).outage(ms(START), ms("2026-06-02T10:00:00.500Z"));
        assertEquals(ms("2026-06-01T10:00Z", "2026-06-02T10:00Z"), pump.dueTimes());
        assertEquals(List.of(1L, 86_401L), pump.numbers());
        assertEquals(86_399, pump.skipped());
        assertEquals(ms("2026-06-02T10:00:01Z"), pump.pending().dueAtMillis());
    }

    @Test
    void aRecordReadLateAppliesTheMissedPolicyFromItsStart() {
        Series s = series(ms("2026-06-01T08:59Z"), "delay-id", "s", "delay-cron", "0 * * * *", "delay-zone", "UTC");
        SeriesPlanner.Plan plan =
                new SeriesPlanner(SeriesPlanner.DEFAULT_SKIP_GRACE_MILLIS).start(s, ms("2026-06-01T11:30Z"));
        assertEquals(List.of(new SeriesPlanner.Occurrence(3, ms("2026-06-01T11:00Z"))), plan.due());
        assertEquals(new SeriesPlanner.Occurrence(4, ms("2026-06-01T12:00Z")), plan.next());
        assertEquals(2, plan.skipped());
    }

    @Test
    void countEndsTheSeries() {
        Series s =
                series(ms(START), "delay-id", "s", "delay-cron", "0 9 * * *", "delay-zone", "UTC", "delay-count", "3");
        SeriesPump pump = new SeriesPump(s, ms(START)).runUntil(ms("2026-07-01T00:00Z"));
        assertEquals(ms("2026-06-02T09:00Z", "2026-06-03T09:00Z", "2026-06-04T09:00Z"), pump.dueTimes());
        assertNull(pump.pending());
    }

    @Test
    void countCountsPlacesSoAnOutageDoesNotLengthenTheSeries() {
        Series s =
                series(ms(START), "delay-id", "s", "delay-cron", "0 9 * * *", "delay-zone", "UTC", "delay-count", "3");
        SeriesPump pump = new SeriesPump(s, ms(START))
                .outage(ms("2026-06-02T10:00Z"), ms("2026-06-04T12:00Z"))
                .runUntil(ms("2026-07-01T00:00Z"));
        assertEquals(ms("2026-06-02T09:00Z", "2026-06-04T09:00Z"), pump.dueTimes());
        assertEquals(List.of(1L, 3L), pump.numbers());
        assertNull(pump.pending());
    }

    @Test
    void endIsInclusive() {
        Series s = series(
                ms(START),
                "delay-id",
                "s",
                "delay-every",
                "1h",
                "delay-until",
                "2026-06-01T12:00Z",
                "delay-end",
                "2026-06-01T14:00Z");
        SeriesPump pump = new SeriesPump(s, ms(START)).runUntil(ms("2026-06-02T00:00Z"));
        assertEquals(ms("2026-06-01T12:00Z", "2026-06-01T13:00Z", "2026-06-01T14:00Z"), pump.dueTimes());
        assertNull(pump.pending());
        Series shorter = series(
                ms(START),
                "delay-id",
                "s",
                "delay-every",
                "1h",
                "delay-until",
                "2026-06-01T12:00Z",
                "delay-end",
                "2026-06-01T13:59:59.999Z");
        assertEquals(
                ms("2026-06-01T12:00Z", "2026-06-01T13:00Z"),
                new SeriesPump(shorter, ms(START))
                        .runUntil(ms("2026-06-02T00:00Z"))
                        .dueTimes());
    }

    @Test
    void endBoundsTheCatchUpToo() {
        Series s = series(
                ms(START),
                "delay-id",
                "s",
                "delay-every",
                "1m",
                "delay-until",
                START,
                "delay-end",
                "2026-06-01T10:30Z",
                "delay-missed",
                "all");
        SeriesPump pump = new SeriesPump(s, ms(START)).outage(ms(START), ms("2026-06-01T12:00Z"));
        assertEquals(31, pump.deliveries().size());
        assertEquals(ms("2026-06-01T10:30Z"), pump.deliveries().get(30).dueAtMillis());
        assertNull(pump.pending());
    }

    @Test
    void firstOfTheMonthAndTheThirtyFirst() {
        long from = ms("2026-01-01T00:00Z");
        Series first = series(from, "delay-id", "s", "delay-cron", "0 9 1 * *", "delay-zone", "UTC");
        assertEquals(
                ms("2026-01-01T09:00Z", "2026-02-01T09:00Z", "2026-03-01T09:00Z", "2026-04-01T09:00Z"),
                new SeriesPump(first, from).runUntil(ms("2026-04-15T00:00Z")).dueTimes());
        Series last = series(from, "delay-id", "s", "delay-cron", "0 9 31 * *", "delay-zone", "Europe/Berlin");
        assertEquals(
                ms(
                        "2026-01-31T09:00+01:00",
                        "2026-03-31T09:00+02:00",
                        "2026-05-31T09:00+02:00",
                        "2026-07-31T09:00+02:00",
                        "2026-08-31T09:00+02:00",
                        "2026-10-31T09:00+01:00",
                        "2026-12-31T09:00+01:00"),
                new SeriesPump(last, from).runUntil(ms("2027-01-01T00:00Z")).dueTimes());
    }

    @Test
    void leapDayComesEveryFourYearsAndSkips2100() {
        Series s = series(ms("2026-01-01T00:00Z"), "delay-id", "s", "delay-cron", "0 9 29 2 *", "delay-zone", "UTC");
        assertEquals(
                ms("2028-02-29T09:00Z", "2032-02-29T09:00Z", "2036-02-29T09:00Z"),
                new SeriesPump(s, ms("2026-01-01T00:00Z"))
                        .runUntil(ms("2037-01-01T00:00Z"))
                        .dueTimes());
        Series late = series(ms("2096-03-01T00:00Z"), "delay-id", "s", "delay-cron", "0 9 29 2 *", "delay-zone", "UTC");
        assertEquals(ms("2104-02-29T09:00Z"), SeriesPlanner.first(late).dueAtMillis());
    }

    @Test
    void nothingIsDueBeforeTheFirstOccurrenceNorWhenCalledEarly() {
        Series s = series(ms(START), "delay-id", "s", "delay-cron", "0 12 * * *", "delay-zone", "UTC");
        SeriesPlanner planner = new SeriesPlanner(SeriesPlanner.DEFAULT_SKIP_GRACE_MILLIS);
        SeriesPlanner.Plan plan = planner.start(s, ms(START));
        assertEquals(List.of(), plan.due());
        assertEquals(new SeriesPlanner.Occurrence(1, ms("2026-06-01T12:00Z")), plan.next());
        assertEquals(0, plan.skipped());
        SeriesPlanner.Plan early = planner.advance(s, plan.next(), ms("2026-06-01T11:59:59.999Z"));
        assertEquals(new SeriesPlanner.Plan(List.of(), plan.next(), 0), early);
        SeriesPlanner.Plan onTime = planner.advance(s, plan.next(), ms("2026-06-01T12:00Z"));
        assertEquals(List.of(plan.next()), onTime.due());
        assertEquals(new SeriesPlanner.Occurrence(2, ms("2026-06-02T12:00Z")), onTime.next());
    }
}

package io.delaybridge.schemas;

import static io.delaybridge.schemas.SeriesPump.headers;
import static io.delaybridge.schemas.SeriesPump.ms;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What each turn of a series reports it delivered, missed and skipped ({@link SeriesRecord.Turn}, and read back from
 * its envelope by {@link SeriesRecord#tally}), on a clock the test steps: on time, across an outage under each
 * missed-run policy, past the catch-up cap, and across a spring-forward gap. The counts of all turns add up to what
 * the schedule had: every occurrence is counted once.
 */
class SeriesTurnCountsTest {

    private static final long TS = 1_790_000_000_000L;
    private static final long FIVE_MINUTES = 300_000;
    private static final IntakeParser PARSER = new IntakeParser(
            new TargetPolicy("delay-intake", "delay-deadletter", List.of()),
            Duration.ofDays(365).toMillis());

    @Test
    void onTimeTurnsMissAndSkipNothing() {
        Clocked c = new Clocked(TS, "delay-every", "1s").stepTo(TS + 5_000);
        assertEquals(List.of(1L, 2L, 3L, 4L, 5L), c.delivered);
        assertEquals(0, c.missed);
        assertEquals(0, c.skipped);
        assertEquals(List.of(0L, 0L, 0L, 0L, 0L), c.missedPerTurn);
    }

    @Test
    void afterAnOutageOneDeliversTheLatestAndSkipsTheRest() {
        Clocked c = new Clocked(TS, "delay-every", "1s").stepTo(TS + 2_000).outageUntil(TS + 12_500);
        assertEquals(List.of(1L, 2L, 12L), c.delivered, "3..11 passed while nothing ran");
        assertEquals(9, c.missed);
        assertEquals(9, c.skipped);
        c.stepTo(TS + 14_000);
        assertEquals(List.of(1L, 2L, 12L, 13L, 14L), c.delivered);
        assertEquals(9, c.missed, "back on time: nothing more missed");
    }

    @Test
    void afterAnOutageAllDeliversEachLateOneOnceAndSkipsNothing() {
        Clocked c = new Clocked(TS, "delay-every", "1s", "delay-missed", "all")
                .stepTo(TS + 2_000)
                .outageUntil(TS + 12_500);
        assertEquals(12, c.delivered.size());
        assertEquals(9, c.missed, "3..11 went late, 12 was current");
        assertEquals(0, c.skipped);
        assertEquals(
                List.of(0L, 0L, 1L, 1L, 1L, 1L, 1L, 1L, 1L, 1L, 1L, 0L),
                c.missedPerTurn,
                "one per catch-up turn, none counted twice");
    }

    @Test
    void allSkipsWhatIsPastTheCatchUpCap() {
        int outage = SeriesPlanner.MAX_CATCH_UP + 500;
        Clocked c = new Clocked(TS, "delay-every", "1s", "delay-missed", "all").outageUntil(TS + outage * 1000L + 500);
        assertEquals(SeriesPlanner.MAX_CATCH_UP, c.delivered.size());
        assertEquals(outage - SeriesPlanner.MAX_CATCH_UP, c.skipped);
        assertEquals(outage - 1, c.missed, "all but the current one");
    }

    @Test
    void skipBeyondTheGraceDeliversNothingAndSkipsEveryPassedOne() {
        Clocked c = new Clocked(TS, "delay-every", "5m", "delay-missed", "skip")
                .stepTo(TS + FIVE_MINUTES)
                .outageUntil(TS + 10 * FIVE_MINUTES + 90_000);
        assertEquals(List.of(1L), c.delivered);
        assertEquals(9, c.skipped, "2..10: the latest too, 90 s late is past the 60 s grace");
        assertEquals(9, c.missed);
        assertEquals(11, c.pending.number());
    }

    @Test
    void aSpringForwardGapSkipsItsWallTimeOnlyUnderSkip() {
        String from = "2026-03-28T00:00+01:00";
        String until = "2026-03-31T00:00+02:00";
        Clocked skip = new Clocked(
                        ms(from), "delay-cron", "30 2 * * *", "delay-zone", "Europe/Berlin", "delay-dst-gap", "skip")
                .stepTo(ms(until));
        assertEquals(2, skip.delivered.size(), "the 28th and the 30th");
        assertEquals(1, skip.skipped, "02:30 on the 29th does not exist");
        assertEquals(0, skip.missed);

        Clocked shift = new Clocked(
                        ms(from), "delay-cron", "30 2 * * *", "delay-zone", "Europe/Berlin", "delay-dst-gap", "shift")
                .stepTo(ms(until));
        assertEquals(3, shift.delivered.size(), "the 29th's at 03:00");
        assertEquals(0, shift.skipped);
    }

    @Test
    void aGapSkipsEveryMatchInside() {
        Clocked c = new Clocked(
                        ms("2026-03-29T01:20+01:00"),
                        "delay-cron",
                        "*/15 * * * *",
                        "delay-zone",
                        "Europe/Berlin",
                        "delay-dst-gap",
                        "skip")
                .stepTo(ms("2026-03-29T03:20+02:00"));
        assertEquals(
                ms(
                        "2026-03-29T01:30+01:00",
                        "2026-03-29T01:45+01:00",
                        "2026-03-29T03:00+02:00",
                        "2026-03-29T03:15+02:00"),
                c.dueTimes);
        assertEquals(4, c.skipped, "02:00, 02:15, 02:30 and 02:45 do not exist");
    }

    @Test
    void theEnvelopeCarriesTheCountsOfItsOwnTurnOnly() {
        Clocked c = new Clocked(TS, "delay-every", "1s").outageUntil(TS + 5_500);
        SeriesRecord.Tally late = SeriesRecord.tally(c.lastTurn.envelope());
        assertEquals(new SeriesRecord.Tally(true, 4, 4), late);
        assertEquals(TS + 5_000, SeriesRecord.lastDelivered(SeriesRecord.toStore(c.lastTurn.envelope())));
        c.stepTo(TS + 6_000);
        assertEquals(new SeriesRecord.Tally(true, 0, 0), SeriesRecord.tally(c.lastTurn.envelope()));
    }

    @Test
    void aSkippedTurnKeepsTheLastDelivery() {
        Clocked c = new Clocked(TS, "delay-every", "5m", "delay-missed", "skip")
                .stepTo(TS + FIVE_MINUTES)
                .outageUntil(TS + 5 * FIVE_MINUTES + 90_000);
        assertNull(c.lastTurn.delivered());
        assertEquals(new SeriesRecord.Tally(false, 4, 4), SeriesRecord.tally(c.lastTurn.envelope()));
        assertEquals(TS + FIVE_MINUTES, SeriesRecord.lastDelivered(c.stored));
    }

    /** The pump's part in a series, on a clock stepped by the test: a turn whenever the pending occurrence is due. */
    private static final class Clocked {
        private final SeriesPlanner planner = new SeriesPlanner(SeriesPlanner.DEFAULT_SKIP_GRACE_MILLIS);
        final List<Long> delivered = new ArrayList<>();
        final List<Long> dueTimes = new ArrayList<>();
        final List<Long> missedPerTurn = new ArrayList<>();
        long missed;
        long skipped;
        long now;
        Envelope stored;
        SeriesPlanner.Occurrence pending;
        SeriesRecord.Turn lastTurn;

        Clocked(long timestamp, String... seriesHeaders) {
            List<String> pairs = new ArrayList<>(List.of("delay-target", "out", "delay-id", "s"));
            pairs.addAll(List.of(seriesHeaders));
            try {
                SeriesRecord.First first = SeriesRecord.read(PARSER, headers(pairs.toArray(String[]::new)), timestamp)
                        .orElseThrow();
                stored = new Envelope("out", null, "delay-intake/0/1", null, null, List.of(first.state()));
            } catch (ContractViolation e) {
                throw new AssertionError(e);
            }
            now = timestamp;
            pending = SeriesRecord.state(stored).pending();
        }

        /** The pump wakes at each pending occurrence on time, until {@code until}. */
        Clocked stepTo(long until) {
            while (pending != null && pending.dueAtMillis() <= until) {
                now = Math.max(now, pending.dueAtMillis());
                turn();
            }
            now = Math.max(now, until);
            return this;
        }

        /** Nothing runs until {@code until}; then the pump takes every turn that is due. */
        Clocked outageUntil(long until) {
            now = until;
            while (pending != null && pending.dueAtMillis() <= now) {
                turn();
            }
            return this;
        }

        private void turn() {
            SeriesRecord.Turn turn = SeriesRecord.turn(SeriesRecord.state(stored), stored, planner, now);
            if (turn.delivered() != null) {
                delivered.add(turn.delivered().number());
                dueTimes.add(turn.delivered().dueAtMillis());
            }
            missedPerTurn.add(turn.missed());
            missed += turn.missed();
            skipped += turn.skipped();
            lastTurn = turn;
            stored = SeriesRecord.toStore(turn.envelope());
            pending = turn.next();
        }
    }
}

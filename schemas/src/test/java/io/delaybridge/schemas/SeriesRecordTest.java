package io.delaybridge.schemas;

import static io.delaybridge.schemas.SeriesPump.headers;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.Test;

class SeriesRecordTest {

    private static final long TS = 1_790_000_000_000L;
    private static final IntakeParser PARSER = new IntakeParser(
            new TargetPolicy("delay-intake", "delay-deadletter", List.of()),
            Duration.ofDays(365).toMillis());
    private static final SeriesPlanner PLANNER = new SeriesPlanner(SeriesPlanner.DEFAULT_SKIP_GRACE_MILLIS);

    @Test
    void aSeriesRecordIsScheduledAtItsFirstOccurrenceUnderItsId() throws ContractViolation {
        SeriesRecord.First first = SeriesRecord.read(
                        PARSER,
                        headers("delay-target", "out", "delay-id", "tick", "delay-every", "1s", "delay-count", "3"),
                        TS)
                .orElseThrow();
        assertEquals(new IntakeCommand.Schedule("out", TS + 1000, "tick", true, null), first.schedule());
        SeriesRecord.State state = SeriesRecord.state(envelope(first.state()));
        assertEquals(new SeriesPlanner.Occurrence(1, TS + 1000), state.pending());
        assertEquals("tick", state.series().id());
        assertEquals(3, state.series().count());
    }

    @Test
    void aOneShotRecordIsNoSeries() throws ContractViolation {
        assertTrue(SeriesRecord.read(PARSER, headers("delay-target", "out", "delay-ms", "1s"), TS)
                .isEmpty());
        assertNull(SeriesRecord.state(new Envelope("out", null, "o", null, null, List.of())));
    }

    @Test
    void seriesErrorsComeFirstThenTheScheduleContract() {
        assertEquals(
                ErrorCode.INVALID_CRON,
                code(headers("delay-target", "out", "delay-id", "x", "delay-cron", "61 * * * *", "delay-zone", "UTC")));
        assertEquals(ErrorCode.MISSING_TARGET, code(headers("delay-id", "x", "delay-every", "1s")));
        assertEquals(
                ErrorCode.UNKNOWN_HEADER,
                code(headers("delay-target", "out", "delay-id", "x", "delay-every", "1s", "delay-msec", "1")));
        assertEquals(
                ErrorCode.INVALID_CANCEL, code(headers("delay-cancel", "y", "delay-id", "x", "delay-every", "1s")));
    }

    @Test
    void anOnTimeTurnDeliversThePendingOccurrenceAndPendsTheNext() {
        SeriesRecord.State state = state("delay-every", "1s", "delay-count", "2");
        SeriesRecord.Turn turn = SeriesRecord.turn(state, envelopeOf(state), PLANNER, TS + 1000);
        assertEquals(new SeriesPlanner.Occurrence(1, TS + 1000), turn.delivered());
        assertEquals(new SeriesPlanner.Occurrence(2, TS + 2000), turn.next());
        assertEquals("1", header(turn.envelope(), DelayHeaders.OCCURRENCE));
        assertEquals(TS + 1000, SeriesRecord.dueAt(turn.envelope(), -1));

        Envelope stored = SeriesRecord.toStore(turn.envelope());
        assertNull(header(stored, DelayHeaders.OCCURRENCE));
        SeriesRecord.State second = SeriesRecord.state(stored);
        SeriesRecord.Turn last = SeriesRecord.turn(second, stored, PLANNER, TS + 2000);
        assertEquals(2, last.delivered().number());
        assertNull(last.next(), "delay-count 2 ends the series");
        assertEquals(SeriesRecord.OVER, last.nextDue());
    }

    @Test
    void afterAnOutageOneDeliversTheLatestAndSkipDeliversNone() {
        long now = TS + 10_500; // occurrences 1..10 passed
        SeriesRecord.State one = state("delay-every", "1s");
        SeriesRecord.Turn turn = SeriesRecord.turn(one, envelopeOf(one), PLANNER, now);
        assertEquals(new SeriesPlanner.Occurrence(10, TS + 10_000), turn.delivered());
        assertEquals(new SeriesPlanner.Occurrence(11, TS + 11_000), turn.next());

        SeriesRecord.State all = state("delay-every", "1s", "delay-missed", "all");
        SeriesRecord.Turn first = SeriesRecord.turn(all, envelopeOf(all), PLANNER, now);
        assertEquals(1, first.delivered().number());
        assertEquals(new SeriesPlanner.Occurrence(2, TS + 2000), first.next(), "the rest are due at once");

        SeriesRecord.State skip = state("delay-every", "1s", "delay-missed", "skip");
        SeriesRecord.Turn none = SeriesRecord.turn(skip, envelopeOf(skip), new SeriesPlanner(100), now);
        assertNull(none.delivered());
        assertNull(header(none.envelope(), DelayHeaders.OCCURRENCE));
        assertEquals(new SeriesPlanner.Occurrence(11, TS + 11_000), none.next());
    }

    @Test
    void aDamagedStateIsACorruptEnvelope() {
        Header bad = new org.apache.kafka.common.header.internals.RecordHeader(
                DelayHeaders.SERIES, "n=1&due=x".getBytes(StandardCharsets.UTF_8));
        assertThrows(CorruptEnvelopeException.class, () -> SeriesRecord.state(envelope(bad)));
    }

    private static SeriesRecord.State state(String... seriesHeaders) {
        List<String> pairs = new ArrayList<>(List.of("delay-target", "out", "delay-id", "s"));
        pairs.addAll(List.of(seriesHeaders));
        try {
            SeriesRecord.First first = SeriesRecord.read(PARSER, headers(pairs.toArray(String[]::new)), TS)
                    .orElseThrow();
            return SeriesRecord.state(envelope(first.state()));
        } catch (ContractViolation e) {
            throw new AssertionError(e);
        }
    }

    private static Envelope envelopeOf(SeriesRecord.State state) {
        Header h = new org.apache.kafka.common.header.internals.RecordHeader(
                DelayHeaders.SERIES,
                ("n=" + state.pending().number() + "&due=" + state.pending().dueAtMillis() + "&" + state.definition())
                        .getBytes(StandardCharsets.UTF_8));
        return envelope(h);
    }

    private static Envelope envelope(Header state) {
        return new Envelope("out", null, "delay-intake/0/7", null, null, List.of(state));
    }

    private static String header(Envelope e, String name) {
        for (Header h : e.headers()) {
            if (name.equals(h.key())) {
                return new String(h.value(), StandardCharsets.UTF_8);
            }
        }
        return null;
    }

    private static ErrorCode code(org.apache.kafka.common.header.Headers h) {
        ContractViolation v = assertThrows(ContractViolation.class, () -> SeriesRecord.read(PARSER, h, TS));
        assertNotNull(v.code());
        return v.code();
    }
}

package io.delaybridge.connectors;

import static io.delaybridge.connectors.DelayedRecordsTest.rendered;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.schemas.IntakeParser;
import io.delaybridge.schemas.Series;
import io.delaybridge.schemas.SeriesRecord;
import io.delaybridge.schemas.TargetPolicy;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/** The series headers {@link Repeat} writes, read back by the bridge's own parser. */
class RepeatTest {

    private static final long TS = Instant.parse("2026-11-27T00:00:00Z").toEpochMilli();
    private static final IntakeParser PARSER =
            new IntakeParser(new TargetPolicy("delay-intake", "delay-deadletter", List.of()), Long.MAX_VALUE);

    @Test
    void aCronSeriesWithEveryChoice() throws Exception {
        Instant start = Instant.parse("2026-12-01T00:00:00Z");
        Instant end = Instant.parse("2027-01-01T00:00:00Z");
        ProducerRecord<String, String> r = DelayedRecords.series(
                        "reports.nightly",
                        "report",
                        "{}",
                        "nightly-report",
                        Repeat.cron("30 2 * * *", ZoneId.of("Europe/Berlin"))
                                .startingAt(start)
                                .endingAt(end)
                                .times(30)
                                .dstGap(Series.DstGap.SKIP)
                                .dstOverlap(Series.DstOverlap.TWICE)
                                .missed(Series.Missed.ALL))
                .toRecord();
        assertEquals(
                List.of(
                        "delay-target=reports.nightly",
                        "delay-cron=30 2 * * *",
                        "delay-zone=Europe/Berlin",
                        "delay-until=" + start.toEpochMilli(),
                        "delay-end=" + end.toEpochMilli(),
                        "delay-count=30",
                        "delay-dst-gap=skip",
                        "delay-dst-overlap=twice",
                        "delay-missed=all",
                        "delay-id=nightly-report"),
                rendered(r.headers()));
        Series series = SeriesRecord.state(envelope(r)).series();
        assertEquals("nightly-report", series.id());
        assertEquals(start.toEpochMilli(), series.startMillis());
        assertEquals(end.toEpochMilli(), series.endMillis());
        assertEquals(30, series.count());
        assertEquals(Series.Missed.ALL, series.missed());
        Series.Cron cron = (Series.Cron) series.recurrence();
        assertEquals(ZoneId.of("Europe/Berlin"), cron.zone());
        assertEquals(Series.DstGap.SKIP, cron.gap());
        assertEquals(Series.DstOverlap.TWICE, cron.overlap());
    }

    @Test
    void anIntervalSeriesWritesOnlyWhatIsGiven() throws Exception {
        ProducerRecord<String, String> r = DelayedRecords.<String, String>series(
                        "ticks", null, "t", "tick", Repeat.every(Duration.ofMinutes(15)))
                .withPartition(1)
                .intake("my-intake")
                .toRecord();
        assertEquals("my-intake", r.topic());
        assertEquals(
                List.of("delay-target=ticks", "delay-every=900000", "delay-id=tick", "delay-partition=1"),
                rendered(r.headers()));
        Series series = SeriesRecord.state(envelope(r)).series();
        assertEquals(new Series.Every(900_000), series.recurrence());
        assertEquals(TS + 900_000, series.startMillis(), "first occurrence one interval after the record");
    }

    @Test
    void whatTheBridgeWouldDeadletterFailsAtOnce() {
        assertRefused("INVALID_CRON", () -> Repeat.cron("61 * * * *", ZoneId.of("UTC")));
        assertRefused("fixed offset", () -> Repeat.cron("0 9 * * *", ZoneOffset.ofHours(1)));
        assertRefused("INVALID_INTERVAL", () -> Repeat.every(Duration.ofMillis(500)));
        assertRefused("INVALID_COUNT", () -> Repeat.every(Duration.ofHours(1)).times(0));
        assertRefused(
                "EMPTY_SERIES",
                () -> Repeat.every(Duration.ofHours(1))
                        .startingAt(Instant.parse("2027-01-01T00:00:00Z"))
                        .endingAt(Instant.parse("2026-12-01T00:00:00Z")));
        assertRefused("null", () -> Repeat.every(Duration.ofHours(1)).missed(null));
        assertRefused("id", () -> DelayedRecords.series("t", null, null, " ", Repeat.every(Duration.ofHours(1))));
        assertRefused("repeat is null", () -> DelayedRecords.series("t", null, null, "x", null));
    }

    private static void assertRefused(String expected, Runnable call) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call::run);
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }

    /** The intake's reading of the record, as the bridge stores it: its state header in an envelope. */
    private static io.delaybridge.schemas.Envelope envelope(ProducerRecord<String, String> r) throws Exception {
        SeriesRecord.First first = SeriesRecord.read(PARSER, r.headers(), TS).orElseThrow();
        return new io.delaybridge.schemas.Envelope(
                first.schedule().target(), null, "delay-intake/0/1", null, null, List.of(first.state()));
    }
}

package io.delaybridge.bridge.rules;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.schemas.ContractViolation;
import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.schemas.ErrorCode;
import io.delaybridge.schemas.IntakeCommand;
import io.delaybridge.schemas.IntakeParser;
import io.delaybridge.schemas.Series;
import io.delaybridge.schemas.SeriesHeaders;
import io.delaybridge.schemas.SeriesRecord;
import io.delaybridge.schemas.TargetPolicy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.util.List;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.api.Record;
import org.junit.jupiter.api.Test;

/**
 * What a rule with a series writes to the intake ({@link RuleRecords} with {@link RuleSeries}): the series headers,
 * the end counted from the source record, the delay as the series' start, and nothing the intake's series parser
 * would refuse.
 */
class RuleSeriesTest {

    private static final long T0 =
            OffsetDateTime.parse("2026-11-23T10:00:00Z").toInstant().toEpochMilli();
    private static final long DAY = Duration.ofDays(1).toMillis();
    private static final IntakeParser PARSER = new IntakeParser(
            new TargetPolicy("delay-intake", "delay-deadletter", List.of()),
            Duration.ofDays(365).toMillis());
    private static final RuleRecords RECORDS = new RuleRecords(PARSER);

    @Test
    void aCronRuleStartsASeriesAtTheSourceRecordThatEndsAfterItsEnd() throws ContractViolation {
        Rule rule = rule(null, new RuleSeries("0 9 * * *", "Europe/Berlin", null, 7 * DAY, null, null));
        Record<byte[], byte[]> out = RECORDS.intake(rule, input("order-1"));

        Series series = SeriesHeaders.parse(out.headers(), T0).orElseThrow();
        assertEquals("remind:order-1", series.id());
        assertEquals(T0 + 7 * DAY, series.endMillis(), "the end counts from the source record");
        assertEquals(ZoneId.of("Europe/Berlin"), ((Series.Cron) series.recurrence()).zone());
        assertEquals(
                Long.toString(T0),
                header(out, DelayHeaders.UNTIL),
                "without a delay it starts at the source record, whatever the intake's timestamp type");
        SeriesRecord.First first = SeriesRecord.read(PARSER, out.headers(), T0).orElseThrow();
        long nineInBerlin =
                OffsetDateTime.parse("2026-11-24T09:00+01:00").toInstant().toEpochMilli();
        assertEquals(
                new IntakeCommand.Schedule("orders.reminders", nineInBerlin, "remind:order-1", true, null),
                first.schedule());
    }

    @Test
    void anEveryRuleStartsAtItsDelayAndStopsAtItsCount() throws ContractViolation {
        Rule rule = rule(new RuleDelay.Fixed(600_000), new RuleSeries(null, null, "1h", null, 3L, "all"));
        Record<byte[], byte[]> out = RECORDS.intake(rule, input("order-2"));
        Series series = SeriesHeaders.parse(out.headers(), T0).orElseThrow();
        assertEquals(T0 + 600_000, series.startMillis(), "the delay is the start");
        assertEquals(3, series.count());
        assertEquals(new Series.Every(3_600_000), series.recurrence());
        assertEquals(Series.Missed.ALL, series.missed());
        assertTrue(rule.describe().contains("every 1h, at most 3 times, missed: all, from 10m on"), rule.describe());
    }

    @Test
    void anEveryRuleWithoutADelayStartsOneIntervalAfterTheSourceRecord() throws ContractViolation {
        Rule rule = rule(null, new RuleSeries(null, null, "1h", null, null, null));
        Record<byte[], byte[]> out = RECORDS.intake(rule, input("order-4"));
        assertEquals(Long.toString(T0 + 3_600_000), header(out, DelayHeaders.UNTIL));
        assertEquals(
                T0 + 3_600_000,
                SeriesHeaders.parse(out.headers(), T0 + 500).orElseThrow().startMillis(),
                "read late, it keeps the source record's phase");
    }

    @Test
    void aSeriesTheIntakeWouldRefuseIsRefusedByTheRuleWithItsCode() {
        Rule rule = rule(null, new RuleSeries("0 9 * * *", "Europe/Berlin", null, 3_600_000L, null, null));
        ContractViolation v = assertThrows(ContractViolation.class, () -> RECORDS.intake(rule, input("order-3")));
        assertEquals(ErrorCode.EMPTY_SERIES, v.code(), "no 09:00 within an hour of 11:00");
        assertTrue(v.getMessage().startsWith("rule remind: "), v.getMessage());
    }

    private static Rule rule(RuleDelay delay, RuleSeries series) {
        return new Rule(
                "remind",
                List.of("orders.created"),
                null,
                "orders.reminders",
                delay,
                null,
                IdTemplate.parse("remind:{key}"),
                null,
                series);
    }

    private static RuleInput input(String key) {
        return new RuleInput("orders.created", 0, 7, T0, bytes(key), bytes("{}"), new RecordHeaders());
    }

    private static String header(Record<byte[], byte[]> record, String name) {
        var h = record.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}

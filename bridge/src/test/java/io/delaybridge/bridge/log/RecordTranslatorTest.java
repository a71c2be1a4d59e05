package io.delaybridge.bridge.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.delaybridge.bridge.store.WriteOp;
import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.schemas.TargetPolicy;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

/** When a series read from the intake starts: the record's timestamp, or its rule's source record. */
class RecordTranslatorTest {

    private static final long SECOND = 1_790_000_000_000L; // a whole second
    private final RecordTranslator translator = new RecordTranslator(
            new TargetPolicy("delay-intake", "delay-deadletter", List.of()), 86_400_000L * 365, 1 << 20, 60_000);

    /**
     * A rule read its source record at {@code SECOND} late: its record reached the intake 5 s later and the broker
     * stamped it then (LogAppendTime). The series starts where the rule said, not at the append: the occurrences in
     * between are missed runs, not lost.
     */
    @Test
    void aRuleSeriesStartsFromItsSourceRecordHoweverLateItReachedTheIntake() {
        RecordHeaders headers = everySecond("tick:1", SECOND);
        headers.add(DelayHeaders.RULE, utf8("tick"));
        RecordTranslator.Translation late = translator.translate(appended(headers, SECOND + 5_000));
        assertFalse(late.rejected(), () -> String.valueOf(late.rejection()));
        assertEquals(SECOND, ((WriteOp.Schedule) late.op()).dueAt(), "the first occurrence the rule worked out");
    }

    /** A record written by hand counts from when it was written: a start before that is no reason to catch up. */
    @Test
    void aSeriesWrittenByHandStartsNoEarlierThanItsRecord() {
        RecordTranslator.Translation own =
                translator.translate(appended(everySecond("tick:2", SECOND), SECOND + 5_000));
        assertFalse(own.rejected(), () -> String.valueOf(own.rejection()));
        assertEquals(SECOND + 5_000, ((WriteOp.Schedule) own.op()).dueAt());
    }

    private static RecordHeaders everySecond(String id, long start) {
        RecordHeaders headers = new RecordHeaders();
        headers.add(DelayHeaders.TARGET, utf8("out"));
        headers.add(DelayHeaders.ID, utf8(id));
        headers.add("delay-cron", utf8("* * * * * *"));
        headers.add("delay-zone", utf8("UTC"));
        headers.add("delay-missed", utf8("all"));
        headers.add(DelayHeaders.UNTIL, utf8(Long.toString(start)));
        return headers;
    }

    private static ConsumerRecord<byte[], byte[]> appended(RecordHeaders headers, long appendedAt) {
        byte[] value = utf8("v");
        return new ConsumerRecord<>(
                "delay-intake",
                0,
                7,
                appendedAt,
                TimestampType.LOG_APPEND_TIME,
                0,
                value.length,
                null,
                value,
                headers,
                Optional.empty());
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}

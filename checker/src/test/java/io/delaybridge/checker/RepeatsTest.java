package io.delaybridge.checker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RepeatsTest {

    private static ConsumerRecord<byte[], byte[]> record(String topic, int partition, long offset, long timestamp) {
        return new ConsumerRecord<>(
                topic,
                partition,
                offset,
                timestamp,
                TimestampType.LOG_APPEND_TIME,
                0,
                0,
                null,
                null,
                new RecordHeaders(),
                Optional.empty());
    }

    @Test
    void everyRepeatedRecordIsWrittenWithThePlaceOfEachCopyItsFirstIncluded(@TempDir Path dir) throws Exception {
        DeliveryWatch.Repeats repeats = new DeliveryWatch.Repeats(10, List.of("t.a", "t.b", "dl"));
        repeats.note(3, 1, record("t.b", 7, 123_456_789_012L, 100), "1");
        repeats.note(4, 1, record("t.a", 0, 5, 101), "1");
        repeats.note(3, 2, record("dl", 1, 9, 200), "2");
        repeats.note(3, 3, record("t.a", 2, 11, 300), "3");
        Path file = dir.resolve("repeats.txt");

        repeats.write(file);

        List<String> lines = Files.readAllLines(file);
        assertEquals(1, lines.size(), "only record 3 repeated: " + lines);
        assertEquals(
                "record 3: 100 at t.b-7@123456789012 (first copy) | 200 attempt 2 at dl-1@9 | 300 attempt 3 at t.a-2@11",
                lines.get(0));
        assertTrue(repeats.worst().startsWith("record 3 arrived 3 times"), repeats.worst());
    }

    @Test
    void aRecordThatArrivedOnceIsNotARepeat(@TempDir Path dir) throws Exception {
        DeliveryWatch.Repeats repeats = new DeliveryWatch.Repeats(10, List.of("t.a"));
        repeats.note(1, 1, record("t.a", 0, 1, 100), "1");
        Path file = dir.resolve("repeats.txt");

        repeats.write(file);

        assertEquals(List.of(), Files.readAllLines(file));
        assertEquals("none", repeats.worst());
    }
}

package io.delaybridge.checker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RepeatsTest {

    @Test
    void everyRepeatedRecordIsWrittenWithThePlaceOfEachCopyItsFirstIncluded(@TempDir Path dir) throws Exception {
        DeliveryWatch.Repeats repeats = new DeliveryWatch.Repeats(10, List.of("t.a", "t.b", "dl"));
        repeats.note(3, 1, "100 attempt 1", "t.b", 7, 123_456_789_012L, 100);
        repeats.note(4, 1, "101 attempt 1", "t.a", 0, 5, 101);
        repeats.note(3, 2, "200 attempt 2", "dl", 1, 9, 200);
        repeats.note(3, 3, "300 attempt 3", "t.a", 2, 11, 300);
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
        repeats.note(1, 1, "100 attempt 1", "t.a", 0, 1, 100);
        Path file = dir.resolve("repeats.txt");

        repeats.write(file);

        assertEquals(List.of(), Files.readAllLines(file));
        assertEquals("none", repeats.worst());
    }
}

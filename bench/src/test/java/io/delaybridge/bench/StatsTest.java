package io.delaybridge.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** Lateness by broker time and by read time are kept apart: a transaction's commit shows only in the second. */
class StatsTest {

    @Test
    void lateOnlyByReadTimeShowsInTheReadPercentilesAlone() {
        Stats stats = new Stats("window", 0, 100).readingToo();
        for (int i = 0; i < 100; i++) {
            long due = 1_000 + i;
            // appended 2 ms after due; read 40 ms after due (the commit), the last record 300 ms after
            stats.record(i, due, due + 2, due + (i == 99 ? 300 : 40));
        }
        assertEquals(2, stats.percentile(0.99));
        assertEquals(40, stats.readPercentile(0.5));
        assertEquals(40, stats.readPercentile(0.99));
        assertEquals(300, stats.readPercentile(1.0));
    }

    @Test
    void withoutReadingTooThereIsNoReadFigureAndADuplicateCountsOnce() {
        Stats plain = new Stats("plain", 0, 2);
        plain.record(0, 1_000, 1_005, 1_050);
        assertEquals(-1, plain.readPercentile(0.5));

        Stats reading = new Stats("reading", 0, 2).readingToo();
        reading.record(0, 1_000, 1_005, 1_050);
        reading.record(0, 1_000, 1_005, 1_900); // read again: a duplicate, not a later reading
        assertEquals(50, reading.readPercentile(1.0));
        assertEquals(1, reading.duplicates);
    }
}

package io.delaybridge.bridge.log;

import static io.delaybridge.bridge.log.FetchPlan.Step.READ_ON;
import static io.delaybridge.bridge.log.FetchPlan.Step.SEEK;
import static io.delaybridge.bridge.log.FetchPlan.Step.SKIPPED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.delaybridge.bridge.store.FarEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/**
 * The plan of reading far records back from the intake: slices of an hour, and per needed offset whether to read on,
 * seek, or call it gone. {@link OffsetReader} following it on the real broker: OffsetReaderIT, ThawLoopIT, FarAdminIT.
 */
class FetchPlanTest {

    @Test
    void anHourIsTakenInSlicesOfAtMostMaxRecords() {
        List<FarEntry> entries = LongStream.range(0, 5_001)
                .mapToObj(offset -> new FarEntry(0, offset, 0))
                .toList();
        List<Integer> ends = new ArrayList<>();
        for (int from = 0; from < entries.size(); from = FetchPlan.sliceEnd(entries, from, 2_000)) {
            ends.add(FetchPlan.sliceEnd(entries, from, 2_000));
        }
        assertEquals(List.of(2_000, 4_000, 5_001), ends);
        assertEquals(0, FetchPlan.sliceEnd(List.of(), 0, 2_000));
        assertThrows(IllegalArgumentException.class, () -> FetchPlan.sliceEnd(entries, 0, 0));
    }

    @Test
    void closeOffsetsAreReadThroughAndFarOnesSought() {
        // read from 100, the consumer's next offset is 150
        assertEquals(READ_ON, FetchPlan.step(100, 150, 150, 500), "the next record is the needed one");
        assertEquals(READ_ON, FetchPlan.step(100, 150, 650, 500), "500 records to read through: cheaper than a seek");
        assertEquals(SEEK, FetchPlan.step(100, 150, 651, 500), "further ahead: seek");
        assertEquals(SEEK, FetchPlan.step(100, 150, 99, 500), "behind where reading began: seek back");
        assertEquals(SKIPPED, FetchPlan.step(100, 150, 120, 500), "read past without being returned: gone");
    }

    @Test
    void aContiguousLogIsSoughtOnlyAcrossLargeGaps() {
        // a log holding every offset: each poll returns the needed record and moves the position past it
        long[] needed = {10, 11, 300, 900, 2_000, 2_001, 1_000_000};
        List<Long> seeks = new ArrayList<>();
        long readFrom = -1;
        long position = -1;
        for (long offset : needed) {
            if (position < 0 || FetchPlan.step(readFrom, position, offset, 500) == SEEK) {
                seeks.add(offset);
                readFrom = offset;
            }
            position = offset + 1;
        }
        assertEquals(List.of(10L, 900L, 2_000L, 1_000_000L), seeks, "300 is read through to, 900 and on sought");
    }

    @Test
    void lostOffsetsAreNamedAsRanges() {
        assertEquals("5-9, 12, 20-21", FetchPlan.ranges(List.of(5L, 6L, 7L, 8L, 9L, 12L, 20L, 21L), 10));
        assertEquals("5, 7, and 2 more offsets", FetchPlan.ranges(List.of(5L, 7L, 9L, 11L), 2));
        assertEquals("", FetchPlan.ranges(List.of(), 2));
    }
}

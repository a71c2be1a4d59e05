package io.delaybridge.bridge.intake;

import static io.delaybridge.bridge.intake.FetchPlan.Step.READ_ON;
import static io.delaybridge.bridge.intake.FetchPlan.Step.SEEK;
import static io.delaybridge.bridge.intake.FetchPlan.Step.SKIPPED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.bridge.store.FarEntry;
import io.delaybridge.bridge.time.Time;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.LongStream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.WakeupException;
import org.junit.jupiter.api.Test;

/**
 * The plan of reading far records back from the intake (slices of an hour, and per needed offset whether to read on,
 * seek, or call it gone), and {@link OffsetReader} following it on a mock consumer: what the log no longer holds is
 * reported (the thaw) or absent (the message API), a broker that returns nothing fails the read in time, and a reader
 * woken before its first read still stops. On the real broker: ThawLoopIT, FarAdminIT.
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

    private static final TopicPartition P0 = new TopicPartition("intake", 0);

    /** Partition 0 of "intake" from log start 3 to end 8, holding offsets 3, 4, 6 and 7 (5: an aborted record). */
    private static MockConsumer<byte[], byte[]> log() {
        MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("none");
        consumer.updateBeginningOffsets(Map.of(P0, 3L));
        consumer.updateEndOffsets(Map.of(P0, 8L));
        consumer.schedulePollTask(
                () -> { // records can be added once the reader assigned the partition
                    for (long offset : new long[] {3, 4, 6, 7}) {
                        consumer.addRecord(new ConsumerRecord<>("intake", 0, offset, new byte[1], new byte[1]));
                    }
                });
        return consumer;
    }

    private static List<OffsetReader.Position> positions(long... offsets) {
        return LongStream.of(offsets)
                .mapToObj(o -> new OffsetReader.Position(0, o))
                .toList();
    }

    @Test
    void theThawIsToldWhatTheLogNoLongerHolds() {
        OffsetReader reader = new OffsetReader(FetchPlanTest::log, "intake", Duration.ofSeconds(5), Time.SYSTEM);
        OffsetReader.Fetched fetched = reader.fetch(positions(2, 4, 5, 7, 9));
        assertEquals(5, fetched.covered());
        assertEquals(
                List.of(4L, 7L),
                fetched.records().stream().map(ConsumerRecord::offset).toList());
        assertEquals(Map.of(0, List.of(2L, 5L, 9L)), fetched.lost(), "below the start, read past, beyond the end");
    }

    @Test
    void aSliceFetchedAgainIsReadAgainNotTakenForGone() {
        MockConsumer<byte[], byte[]> consumer = log();
        consumer.schedulePollTask(
                () -> { // the log as the second read finds it (a mock hands each record out once)
                    for (long offset : new long[] {3, 4, 6, 7}) {
                        consumer.addRecord(new ConsumerRecord<>("intake", 0, offset, new byte[1], new byte[1]));
                    }
                });
        OffsetReader reader = new OffsetReader(() -> consumer, "intake", Duration.ofSeconds(5), Time.SYSTEM);
        assertEquals(Map.of(), reader.fetch(positions(4, 6)).lost());
        // the thaw's store failed (Redis restarting): it fetches the same slice again
        OffsetReader.Fetched again = reader.fetch(positions(4, 6));
        assertEquals(Map.of(), again.lost(), "read before, so not gone");
        assertEquals(
                List.of(4L, 6L),
                again.records().stream().map(ConsumerRecord::offset).toList());
    }

    @Test
    void theApiGetsTheRecordsTheLogHoldsInAnyOrder() {
        OffsetReader reader = new OffsetReader(FetchPlanTest::log, "intake", Duration.ofSeconds(5), Time.SYSTEM);
        Map<OffsetReader.Position, ConsumerRecord<byte[], byte[]>> read =
                reader.read(positions(9, 7, 2, 4, 5, 4), Duration.ofSeconds(5));
        assertEquals(Set.copyOf(positions(4, 7)), read.keySet(), "a missing position is absent");
        assertEquals(7, read.get(new OffsetReader.Position(0, 7)).offset());
    }

    @Test
    void aBrokerThatReturnsNothingFailsTheReadInTime() {
        MockConsumer<byte[], byte[]> silent = new MockConsumer<>("none");
        silent.updateBeginningOffsets(Map.of(P0, 0L));
        silent.updateEndOffsets(Map.of(P0, 10L));
        OffsetReader api = new OffsetReader(() -> silent, "intake", Duration.ofSeconds(30), Time.SYSTEM);
        long start = System.nanoTime();
        assertThrows(TimeoutException.class, () -> api.read(positions(5), Duration.ofMillis(300)));
        assertTrue(System.nanoTime() - start < Duration.ofSeconds(5).toNanos(), "the request's limit, not the call's");

        OffsetReader thaw = new OffsetReader(() -> silent, "intake", Duration.ofMillis(300), Time.SYSTEM);
        assertThrows(TimeoutException.class, () -> thaw.fetch(positions(5)), "retried later, nothing reported lost");
    }

    @Test
    void aReaderWokenBeforeItsFirstReadStops() {
        OffsetReader reader = new OffsetReader(FetchPlanTest::log, "intake", Duration.ofSeconds(5), Time.SYSTEM);
        reader.wakeup();
        assertThrows(WakeupException.class, () -> reader.fetch(positions(4)));
    }
}

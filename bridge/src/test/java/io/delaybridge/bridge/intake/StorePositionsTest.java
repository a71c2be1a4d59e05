package io.delaybridge.bridge.intake;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.delaybridge.bridge.store.PositionMark;
import io.delaybridge.bridge.store.StoreGapException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class StorePositionsTest {

    private static final TopicPartition P0 = new TopicPartition("intake", 0);
    private static final TopicPartition P1 = new TopicPartition("intake", 1);

    /** A poll that read {@code partition}'s offsets [first, next). */
    private static IntakePoll poll(TopicPartition partition, long first, long next) {
        return new IntakePoll(
                List.of(),
                List.of(),
                List.of(),
                List.of(),
                Map.of(partition, new OffsetAndMetadata(next)),
                Map.of(partition, first),
                Long.MAX_VALUE,
                (int) (next - first));
    }

    @Test
    void eachPollExpectsTheEndOfThePollWrittenBeforeItEvenWhileThatOneIsInFlight() {
        StorePositions positions = new StorePositions();
        assertEquals(List.of(new PositionMark(0, PositionMark.UNKNOWN, 20)), positions.marksFor(poll(P0, 10, 20)));
        // the first poll is still on its way: the pipeline keeps the two in order, so the second expects its end
        assertEquals(List.of(new PositionMark(0, 20, 35)), positions.marksFor(poll(P0, 20, 35)));
        assertEquals(List.of(new PositionMark(1, PositionMark.UNKNOWN, 4)), positions.marksFor(poll(P1, 0, 4)));
    }

    @Test
    void aRewindExpectsWhatTheStoreAcknowledged() {
        StorePositions positions = new StorePositions();
        IntakePoll first = poll(P0, 10, 20);
        positions.marksFor(first);
        positions.stored(first);
        positions.marksFor(poll(P0, 20, 30)); // fails: its mark may not have run
        positions.rewound();
        assertEquals(List.of(new PositionMark(0, 20, 30)), positions.marksFor(poll(P0, 20, 30)));
    }

    @Test
    void assignedPartitionsExpectTheOffsetABridgeCommittedAndNothingForAToolsOffset() {
        StorePositions positions = new StorePositions();
        Map<TopicPartition, OffsetAndMetadata> committed = new HashMap<>();
        committed.put(P0, new OffsetAndMetadata(500, OffsetCommitter.incarnationMarker("abc")));
        committed.put(P1, new OffsetAndMetadata(70, "")); // kafka-consumer-groups --reset-offsets
        positions.assigned(List.of(P0, P1), committed);
        assertEquals(Map.of(P0, 500L), positions.idle(Set.of(P0, P1), Set.of()));
        assertEquals(List.of(new PositionMark(0, 500, 510)), positions.marksFor(poll(P0, 500, 510)));
        assertEquals(List.of(new PositionMark(1, PositionMark.UNKNOWN, 80)), positions.marksFor(poll(P1, 70, 80)));
    }

    @Test
    void aGapIsAStoredPositionBelowTheExpectedOneAndAMissingPositionIsNone() {
        Map<TopicPartition, Long> expected = Map.of(P0, 500L, P1, 80L, new TopicPartition("intake", 2), 9L);
        List<StoreGapException.Gap> gaps = StorePositions.behind(expected, Map.of(0, 420L, 1, 80L));
        assertEquals(List.of(new StoreGapException.Gap(0, 420, 500)), gaps);
        assertEquals(80, gaps.get(0).missing());
    }

    @Test
    void theIdleCheckSkipsPartitionsInFlightOrNotOwnedAndARepairMovesTheExpectation() {
        StorePositions positions = new StorePositions();
        IntakePoll p0 = poll(P0, 0, 10);
        IntakePoll p1 = poll(P1, 0, 5);
        positions.marksFor(p0);
        positions.marksFor(p1);
        positions.stored(p0);
        positions.stored(p1);
        assertEquals(Map.of(P1, 5L), positions.idle(Set.of(P0, P1), Set.of(P0)));
        assertEquals(Map.of(P0, 10L), positions.idle(Set.of(P0), Set.of()));
        positions.readFrom(P0, 3);
        assertEquals(List.of(new PositionMark(0, 3, 10)), positions.marksFor(poll(P0, 3, 10)));
        positions.forget(List.of(P0, P1));
        assertEquals(Map.of(), positions.idle(Set.of(P0, P1), Set.of()));
    }
}

package io.delaybridge.bridge.intake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.bridge.store.WriteResult;
import io.delaybridge.bridge.time.Time;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class BatchesInFlightTest {

    private static final TopicPartition P0 = new TopicPartition("intake", 0);
    private static final TopicPartition P1 = new TopicPartition("intake", 1);

    @Test
    void batchesCompleteOldestFirst() {
        BatchesInFlight batches = new BatchesInFlight(Time.SYSTEM);
        CompletableFuture<List<WriteResult>> first = new CompletableFuture<>();
        CompletableFuture<List<WriteResult>> second = CompletableFuture.completedFuture(List.of());
        IntakePoll older = poll(Map.of(P0, 5L), 3);
        batches.add(written(older, first));
        batches.add(written(poll(Map.of(P0, 8L), 2), second));

        assertFalse(batches.oldestDone(), "the younger batch is done, the oldest is not");
        assertSame(older, batches.oldest().poll());
        assertEquals(5, batches.records());
        first.complete(List.of());
        assertTrue(batches.oldestDone());
        batches.completeOldest();
        assertEquals(1, batches.size());
        assertEquals(2, batches.records());
    }

    @Test
    void droppingAllReturnsTheEarliestOffsetOfEachPartition() {
        BatchesInFlight batches = new BatchesInFlight(Time.SYSTEM);
        batches.add(written(poll(Map.of(P0, 5L), 1), new CompletableFuture<>()));
        batches.add(written(poll(Map.of(P0, 9L, P1, 4L), 1), new CompletableFuture<>()));

        assertEquals(java.util.Set.of(P0, P1), batches.partitions(), "the idle store check skips these");
        assertEquals(Map.of(P0, 5L, P1, 4L), batches.dropAll());
        assertEquals(java.util.Set.of(), batches.partitions());
        assertTrue(batches.isEmpty());
        assertFalse(batches.oldestDone());
        assertEquals(Map.of(), batches.dropAll());
    }

    private static PollWriter.WrittenPoll written(IntakePoll poll, CompletableFuture<List<WriteResult>> write) {
        return new PollWriter.WrittenPoll(poll, write, null, 1, System.nanoTime());
    }

    private static IntakePoll poll(Map<TopicPartition, Long> first, int count) {
        return new IntakePoll(List.of(), List.of(), List.of(), List.of(), Map.of(), first, Long.MAX_VALUE, count);
    }
}

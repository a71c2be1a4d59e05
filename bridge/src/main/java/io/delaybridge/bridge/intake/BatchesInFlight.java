package io.delaybridge.bridge.intake;

import io.delaybridge.bridge.store.WriteResult;
import io.delaybridge.bridge.time.Time;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.common.TopicPartition;

/**
 * The polls written to the store and not yet completed, in poll order (at most
 * {@link IntakeLoop#MAX_BATCHES_IN_FLIGHT}). Completed strictly oldest first; on a failure all are dropped and the
 * consumer reads again from the earliest record among them. Holds no connection; intake thread only.
 */
final class BatchesInFlight {

    private final ArrayDeque<PollWriter.WrittenPoll> batches = new ArrayDeque<>();
    private final Time time;

    BatchesInFlight(Time time) {
        this.time = time;
    }

    void add(PollWriter.WrittenPoll written) {
        batches.add(written);
    }

    boolean isEmpty() {
        return batches.isEmpty();
    }

    int size() {
        return batches.size();
    }

    /**
     * Waits for the oldest batch's write, at most {@code timeoutSeconds}; offsets that wait for their commit meanwhile
     * are committed when due, so that a slow Redis does not hold them past the time they were promised for.
     */
    List<WriteResult> awaitOldest(PollCommits commits, long timeoutSeconds)
            throws InterruptedException, ExecutionException, TimeoutException {
        CompletableFuture<List<WriteResult>> write = batches.element().results();
        long deadline = time.nanoseconds() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        while (true) {
            long now = time.nanoseconds();
            long untilCommit = commits.nanosUntilCommit(now);
            try {
                return write.get(Math.max(0, Math.min(deadline - now, untilCommit)), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                if (time.nanoseconds() - deadline >= 0) {
                    throw e;
                }
                commits.commitIfDue();
            }
        }
    }

    /** The oldest batch, or null. */
    PollWriter.WrittenPoll oldest() {
        return batches.peek();
    }

    /** Whether the oldest batch's write is done (false if there is none). */
    boolean oldestDone() {
        PollWriter.WrittenPoll oldest = batches.peek();
        return oldest != null && oldest.results().isDone();
    }

    /** The oldest batch is complete: it leaves the queue. */
    void completeOldest() {
        batches.poll();
    }

    /** The partitions that a batch in flight read. */
    Set<TopicPartition> partitions() {
        Set<TopicPartition> partitions = new HashSet<>();
        batches.forEach(b -> partitions.addAll(b.poll().first().keySet()));
        return partitions;
    }

    /** The polls of every batch in flight, oldest first. */
    List<IntakePoll> polls() {
        return batches.stream().map(PollWriter.WrittenPoll::poll).toList();
    }

    /** The records of every batch in flight. */
    int records() {
        return batches.stream().mapToInt(b -> b.poll().count()).sum();
    }

    /** Drops every batch and returns, per partition, the earliest offset among them: where to read again. */
    Map<TopicPartition, Long> dropAll() {
        Map<TopicPartition, Long> earliest = new HashMap<>();
        for (PollWriter.WrittenPoll dropped : batches) {
            dropped.poll().first().forEach((partition, offset) -> earliest.merge(partition, offset, Math::min));
        }
        batches.clear();
        return earliest;
    }
}

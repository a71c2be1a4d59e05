package io.delaybridge.bridge.intake;

import io.delaybridge.bridge.errors.Failures;
import io.delaybridge.bridge.store.DelayStore;
import io.delaybridge.bridge.store.StoreGapException;
import io.delaybridge.bridge.time.Time;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds and repairs what the store lost of acknowledged intake records: a Redis fail-over with asynchronous replication
 * ({@code waitReplicas: 0}) can lose a master's last writes, whose offsets may already be committed. The store's
 * position marks ({@link StorePositions}) tell: a write batch whose mark finds the store behind fails with {@link
 * StoreGapException}; once a second, the partitions with nothing in flight are compared with the store; and an assigned
 * partition's committed offset is compared with it. Each gap is logged, counted, and read again from the stored
 * position (writes are idempotent; messages of that range already delivered may be delivered again, with the same
 * {@code delay-id}). If Kafka no longer has those records (retention), the loss is real: logged as an error and
 * reported by the health check, and the intake goes on from Kafka's first offset. Intake thread only.
 */
final class StoreGapRepair {

    private static final Logger LOG = LoggerFactory.getLogger(StoreGapRepair.class);
    private static final long CHECK_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final Duration OFFSETS_TIMEOUT = Duration.ofSeconds(10);

    private final Consumer<byte[], byte[]> consumer;
    private final DelayStore store;
    private final StorePositions positions;
    private final PollCommits commits;
    private final IntakeMetrics metrics;
    private final Time time;
    private long lastCheck;
    private volatile String loss;

    StoreGapRepair(
            Consumer<byte[], byte[]> consumer,
            DelayStore store,
            StorePositions positions,
            PollCommits commits,
            IntakeMetrics metrics,
            Time time) {
        this.time = time;
        this.lastCheck = time.nanoseconds();
        this.consumer = consumer;
        this.store = store;
        this.positions = positions;
        this.commits = commits;
        this.metrics = metrics;
    }

    /** The last loss that could not be repaired (Kafka no longer had the records), or null. */
    String loss() {
        return loss;
    }

    /** Partitions assigned: they expect their committed offsets, and the store is checked against them now. */
    void assigned(Collection<TopicPartition> partitions, Map<TopicPartition, OffsetAndMetadata> committed) {
        positions.assigned(partitions, committed);
        check(positions.idle(Set.copyOf(partitions), Set.of()), "when the partitions were assigned");
    }

    /** Partitions moved away. */
    void forget(Collection<TopicPartition> partitions) {
        positions.forget(partitions);
    }

    /** At most once a second: compares the store's positions of the owned partitions that have nothing in flight. */
    void checkIdle(Set<TopicPartition> busy) {
        long now = time.nanoseconds();
        if (now - lastCheck < CHECK_INTERVAL_NANOS) {
            return;
        }
        lastCheck = now;
        check(positions.idle(consumer.assignment(), busy), "by the periodic check");
    }

    private void check(Map<TopicPartition, Long> expected, String when) {
        if (expected.isEmpty()) {
            return;
        }
        Map<Integer, Long> inStore;
        try {
            inStore = store.positions(
                    expected.keySet().stream().map(TopicPartition::partition).toList());
        } catch (RuntimeException e) {
            LOG.debug("Reading the store's positions failed; checking again later: {}", Failures.describe(e));
            return;
        }
        List<StoreGapException.Gap> gaps = StorePositions.behind(expected, inStore);
        if (!gaps.isEmpty()) {
            repair(gaps, when);
        }
    }

    /**
     * Sends each owned partition of {@code gaps} back to its stored position (or to Kafka's first offset, if retention
     * deleted records since), forgets its offsets waiting for a commit, and reports.
     */
    void repair(List<StoreGapException.Gap> gaps, String when) {
        Set<TopicPartition> owned = consumer.assignment();
        for (StoreGapException.Gap gap : gaps) {
            TopicPartition partition = owned.stream()
                    .filter(p -> p.partition() == gap.partition())
                    .findFirst()
                    .orElse(null);
            if (partition == null) {
                continue; // moved away meanwhile: its new owner compares its committed offset with the store
            }
            long from = gap.stored();
            long first = firstOffset(partition);
            metrics.storeGaps.mark();
            if (first > from) {
                loss = "Redis lost acknowledged writes of intake " + partition + ", offsets [" + from + ", "
                        + gap.expected() + "), found " + when + ", and Kafka no longer has offsets [" + from + ", "
                        + first + ") (retention): the messages of those records are lost. Use waitReplicas: 1 where a"
                        + " Redis fail-over must not lose messages (docs/reliability.md)";
                LOG.error(loss);
                from = first;
            }
            metrics.gapRecords.mark(Math.max(0, gap.expected() - from));
            LOG.warn(
                    "Redis lost acknowledged writes of intake {}: the store holds offsets up to {}, {} were"
                            + " acknowledged ({} records lost, found {}; a fail-over to a replica that had not received"
                            + " them?). Reading them again from offset {}: messages of that range already delivered may be"
                            + " delivered again, with the same delay-id.",
                    partition,
                    gap.stored(),
                    gap.expected(),
                    gap.missing(),
                    when,
                    from);
            consumer.seek(partition, from);
            positions.readFrom(partition, gap.stored());
            commits.forget(List.of(partition));
        }
    }

    /** Kafka's first offset of {@code partition}, or -1 if it cannot be read now (then the stored position is used). */
    private long firstOffset(TopicPartition partition) {
        try {
            Long first = consumer.beginningOffsets(List.of(partition), OFFSETS_TIMEOUT)
                    .get(partition);
            return first == null ? -1 : first;
        } catch (WakeupException e) {
            throw e;
        } catch (RuntimeException e) {
            LOG.warn("Could not read the first offset of {}: {}", partition, Failures.describe(e));
            return -1;
        }
    }
}

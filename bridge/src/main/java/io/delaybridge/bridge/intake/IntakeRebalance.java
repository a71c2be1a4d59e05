package io.delaybridge.bridge.intake;

import io.delaybridge.bridge.errors.Failures;
import io.delaybridge.bridge.express.IntakeDelivery;
import io.delaybridge.bridge.store.DelayStore;
import io.delaybridge.schemas.IntakeOrigin;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands partition ownership to the pump (shard N is pumped where intake partition N is read): what is on its way to
 * Redis is stored and committed before partitions move, and assigned partitions are checked against the store's
 * incarnation first. Runs on the intake thread, inside {@code poll()}.
 */
final class IntakeRebalance implements ConsumerRebalanceListener {

    private static final Logger LOG = LoggerFactory.getLogger(IntakeRebalance.class);
    /** How long an assignment waits for the committed offsets with exactly once. */
    private static final Duration COMMITTED_TIMEOUT = Duration.ofSeconds(10);

    private final IntakeLoop loop;
    private final Consumer<byte[], byte[]> consumer;
    private final PollCommits commits;
    private final PartitionListener partitionListener;
    private final DelayStore store;
    private final StoreGapRepair gaps;
    private final IntakeDelivery delivery;

    IntakeRebalance(
            IntakeLoop loop,
            Consumer<byte[], byte[]> consumer,
            PollCommits commits,
            PartitionListener partitionListener,
            DelayStore store,
            StoreGapRepair gaps,
            IntakeDelivery delivery) {
        this.loop = loop;
        this.consumer = consumer;
        this.commits = commits;
        this.partitionListener = partitionListener;
        this.store = store;
        this.gaps = gaps;
        this.delivery = delivery;
    }

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
        // what is on its way to Redis is committed before the partitions move, or read again by their next owner
        loop.completeAllBatches();
        commits.commitBeforeHandOver(partitions);
        gaps.forget(partitions);
        if (!partitions.isEmpty()) {
            partitionListener.revoked(numbers(partitions));
        }
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
        if (partitions.isEmpty()) {
            return;
        }
        if (exactlyOnce()) {
            fenceEarlierOwners(partitions);
        }
        Map<TopicPartition, OffsetAndMetadata> committed = committed(partitions);
        if (committedByAnotherIncarnation(committed)) {
            return; // no shard is pumped; the loop ends after this poll
        }
        if (exactlyOnce()) {
            committed = IntakeFloors.apply(
                    consumer, delivery, partitions, committed, OffsetCommitter.incarnationMarker(store.incarnation()));
            readingAgain(partitions, committed);
        }
        // a Redis fail-over may have lost records whose offsets were committed: read them again
        gaps.assigned(partitions, committed);
        partitionListener.assigned(numbers(partitions));
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> partitions) {
        LOG.warn("Lost intake partitions {} without a clean hand-over", partitions);
        // no commit is possible now: drop what is on its way (stored once all the same) and read it again
        loop.rewind();
        commits.forget(partitions); // the new owner reads them again; stored once
        gaps.forget(partitions);
        if (!partitions.isEmpty()) {
            partitionListener.revoked(numbers(partitions));
        }
    }

    /**
     * Opens the partitions' shards for sending before their committed offsets are read: fencing the shards' other
     * producers aborts what a killed owner left open, intake offsets included, which would otherwise hold up the read
     * below until the broker's transaction timeout (and with it every record of these partitions, and every
     * read_committed reader of the targets the dead transactions wrote to). A shard that cannot be opened now is opened
     * again before its first claim.
     */
    private void fenceEarlierOwners(Collection<TopicPartition> partitions) {
        delivery.openShards(numbers(partitions))
                .forEach((shard, e) -> LOG.warn(
                        "Could not open shard {} at its assignment; it is opened again before its first claim: {}",
                        shard,
                        Failures.describe(e)));
    }

    /**
     * Tells the delivery which records this owner reads that an earlier reader may have stored already: from where
     * reading starts up to the partition's end now. The pump may deliver and ack such a message before the intake
     * stores its record again as a new message with the same id; its id must outlive that copy ({@link
     * IntakeDelivery#readAgain}).
     */
    private void readingAgain(Collection<TopicPartition> partitions, Map<TopicPartition, OffsetAndMetadata> from) {
        Map<TopicPartition, Long> ends;
        try {
            ends = consumer.endOffsets(partitions, COMMITTED_TIMEOUT);
        } catch (WakeupException e) {
            throw e;
        } catch (RuntimeException e) {
            LOG.warn(
                    "Could not read the end offsets of {}: a record stored before the hand-over, delivered, and"
                            + " stored again by this owner may be delivered twice: {}",
                    partitions,
                    Failures.describe(e));
            return;
        }
        ends.forEach((partition, end) -> {
            OffsetAndMetadata start = from.get(partition);
            long first = start == null ? 0 : start.offset();
            if (end != null && end > first) {
                delivery.readAgain(
                        partition.partition(),
                        first,
                        new IntakeOrigin(partition.topic(), partition.partition(), end - 1));
            }
        });
    }

    /** The committed offsets of {@code partitions}; empty if they cannot be read now. */
    private Map<TopicPartition, OffsetAndMetadata> committed(Collection<TopicPartition> partitions) {
        try {
            // with exactly once, an offset a transaction left pending blocks this read until the transaction ends:
            // wait less, the delivered log's floor stands in (IntakeFloors)
            Map<TopicPartition, OffsetAndMetadata> committed = exactlyOnce()
                    ? consumer.committed(new HashSet<>(partitions), COMMITTED_TIMEOUT)
                    : consumer.committed(new HashSet<>(partitions));
            Map<TopicPartition, OffsetAndMetadata> found = new HashMap<>();
            committed.forEach((partition, offset) -> {
                if (offset != null) {
                    found.put(partition, offset);
                }
            });
            return found;
        } catch (WakeupException e) {
            throw e;
        } catch (RuntimeException e) {
            LOG.warn(
                    "Could not read the committed offsets of {} to check the store's incarnation and positions: {}",
                    partitions,
                    Failures.describe(e));
            return Map.of();
        }
    }

    /** True (and the intake stopped) if a partition's offsets were committed over another store's data. */
    private boolean committedByAnotherIncarnation(Map<TopicPartition, OffsetAndMetadata> committed) {
        String mismatch = OffsetCommitter.incarnationMismatch(committed, store.incarnation());
        if (mismatch == null) {
            return false;
        }
        loop.stopForDataLoss(mismatch);
        return true;
    }

    private boolean exactlyOnce() {
        return delivery != null && delivery.exactlyOnce();
    }

    private static List<Integer> numbers(Collection<TopicPartition> partitions) {
        return partitions.stream().map(TopicPartition::partition).sorted().toList();
    }
}

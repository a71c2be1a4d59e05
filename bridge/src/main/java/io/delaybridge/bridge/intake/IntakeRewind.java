package io.delaybridge.bridge.intake;

import io.delaybridge.bridge.errors.Failures;
import io.delaybridge.bridge.express.IntakeDelivery;
import io.delaybridge.schemas.IntakeOrigin;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The intake's way back after a write that failed: drops every batch in flight (their express records never left) and
 * seeks the consumer back to the earliest record among them, telling the delivery which records are read again, since
 * part of them may be stored, delivered and acked already (a write that failed halfway). With exactly once their ids
 * must outlive the copies stored again ({@link IntakeDelivery#readAgain}).
 */
final class IntakeRewind {

    private static final Logger LOG = LoggerFactory.getLogger(IntakeRewind.class);

    private final BatchesInFlight inFlight;
    private final PollWriter writer;
    private final StorePositions positions;
    private final IntakeDelivery delivery;

    IntakeRewind(BatchesInFlight inFlight, PollWriter writer, StorePositions positions, IntakeDelivery delivery) {
        this.inFlight = inFlight;
        this.writer = writer;
        this.positions = positions;
        this.delivery = delivery;
    }

    /**
     * Drops every batch in flight and seeks {@code consumer} back to the earliest record among them. A rebalance may
     * have taken partitions away meanwhile: their new owner reads them from the last commit.
     */
    void rewind(Consumer<byte[], byte[]> consumer) {
        Map<TopicPartition, Long> earliest = drop();
        Set<TopicPartition> assigned = consumer.assignment();
        earliest.forEach((partition, offset) -> {
            if (assigned.contains(partition)) {
                readAgain(consumer, partition, offset);
                consumer.seek(partition, offset);
            }
        });
    }

    /** Drops every batch in flight (read again: their express records never left); returns where to read again. */
    Map<TopicPartition, Long> drop() {
        writer.dropped(inFlight.polls());
        positions.rewound();
        return inFlight.dropAll();
    }

    /** Tells the delivery that the records of {@code partition} from {@code from} to the last one read are read again. */
    private void readAgain(Consumer<byte[], byte[]> consumer, TopicPartition partition, long from) {
        try {
            long last = consumer.position(partition, Duration.ZERO) - 1;
            if (last >= from) {
                delivery.readAgain(
                        partition.partition(), from, new IntakeOrigin(partition.topic(), partition.partition(), last));
            }
        } catch (WakeupException e) {
            throw e;
        } catch (RuntimeException e) {
            // no position now (none was fetched): nothing was read past the batches in flight
            LOG.debug("No position of {} to mark what is read again: {}", partition, Failures.describe(e));
        }
    }
}

package io.delaybridge.bridge.intake;

import io.delaybridge.bridge.express.IntakeDelivery;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * With {@code delivery.exactlyOnce}, an assigned intake partition is never read from below the floor its shard's
 * delivered log holds: the highest offset known committed when the shard's last transaction committed. The group's
 * committed offset only moves forward, so one below the floor means Kafka lost commits (a group coordinator that came
 * back from a crash with older offsets), and reading from it would store again, and deliver again, records delivered
 * long ago whose ids the bridge no longer remembers. Such a partition, or one whose offset cannot be read now, is read
 * from the floor instead. An offset set by a tool (its metadata has no incarnation marker: a reset to replay) is
 * honoured. Holds no connection; intake thread only.
 */
final class IntakeFloors {

    private static final Logger LOG = LoggerFactory.getLogger(IntakeFloors.class);

    private IntakeFloors() {}

    /**
     * Seeks each of {@code partitions} whose committed offset ({@code committed}; missing if unknown) lies below its
     * floor to the floor; returns the offsets the intake starts from, as committed by a bridge ({@code marker}).
     */
    static Map<TopicPartition, OffsetAndMetadata> apply(
            Consumer<byte[], byte[]> consumer,
            IntakeDelivery delivery,
            Collection<TopicPartition> partitions,
            Map<TopicPartition, OffsetAndMetadata> committed,
            String marker) {
        Map<Integer, Long> floors = delivery.intakeFloors(
                partitions.stream().map(TopicPartition::partition).toList());
        if (floors.isEmpty()) {
            return committed;
        }
        Map<TopicPartition, OffsetAndMetadata> from = new HashMap<>(committed);
        for (TopicPartition partition : partitions) {
            Long floor = floors.get(partition.partition());
            OffsetAndMetadata at = committed.get(partition);
            if (floor == null || (at != null && (!byBridge(at) || at.offset() >= floor))) {
                continue;
            }
            LOG.warn(
                    "The committed offset of intake {} is {}, but a committed transaction of shard {} recorded that "
                            + "offset {} was committed: Kafka's group coordinator lost commits (it does after a crash "
                            + "at times) or cannot answer now. Reading from {}: the records below it were delivered.",
                    partition,
                    at == null ? "unknown" : Long.toString(at.offset()),
                    partition.partition(),
                    floor,
                    floor);
            consumer.seek(partition, floor);
            from.put(partition, new OffsetAndMetadata(floor, marker));
        }
        return from;
    }

    private static boolean byBridge(OffsetAndMetadata offset) {
        return offset.metadata() != null && offset.metadata().startsWith(OffsetCommitter.INCARNATION_PREFIX);
    }
}

package io.delaybridge.bridge.delivery;

import io.delaybridge.schemas.IntakeOrigin;
import java.util.Collection;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * The intake's offsets that a shard's transaction commits together with the express records it delivers
 * ({@code delivery.exactlyOnce}): consume-transform-produce, {@code sendOffsetsToTransaction} with the intake
 * consumer's group metadata. Implemented by the intake, which alone knows what may be committed (its poll-order
 * rule); asked by the shard's commit thread just before the transaction commits.
 */
public interface TransactionOffsets {

    /** Offsets that may commit with a transaction, and whom to tell how it ended. */
    interface Carry {
        Map<TopicPartition, OffsetAndMetadata> offsets();

        /** The intake consumer's group metadata: the broker refuses the offsets of a member that lost its place. */
        ConsumerGroupMetadata group();

        /** How the transaction ended: called exactly once, with whether it committed (false: aborted or unknown). */
        void ended(boolean committed);
    }

    /**
     * The offsets of {@code shard}'s intake partition that may commit with a transaction holding sends of the intake
     * records {@code origins} (null for an origin that is not a position): every record before them is stored,
     * deadlettered, settled, or delivered by this transaction. Null if there are none; else the caller must end the
     * carry.
     */
    Carry offer(int shard, Collection<IntakeOrigin> origins);
}

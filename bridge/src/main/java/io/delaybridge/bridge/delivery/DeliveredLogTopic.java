package io.delaybridge.bridge.delivery;

import io.delaybridge.bridge.time.Time;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/** The topic of the {@link DeliveredLog}, made ready at start-up. */
public final class DeliveredLogTopic {

    private DeliveredLogTopic() {}

    /**
     * Creates the topic (compacted, one partition per shard) unless it exists; fails start-up if it exists with fewer
     * partitions than there are shards.
     */
    public static void prepare(Admin admin, String topic, int shards, Optional<Short> replication, Time time)
            throws InterruptedException, ExecutionException, java.util.concurrent.TimeoutException {
        try {
            admin.createTopics(List.of(new NewTopic(topic, Optional.of(shards), replication)
                            .configs(Map.of(
                                    TopicConfig.CLEANUP_POLICY_CONFIG,
                                    TopicConfig.CLEANUP_POLICY_COMPACT,
                                    TopicConfig.SEGMENT_MS_CONFIG,
                                    "600000"))))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw e;
            }
        }
        TopicDescription description = describe(admin, topic, time);
        if (description.partitions().size() < shards) {
            throw new IllegalStateException("delivery.exactlyOnce: the delivered log " + topic + " has "
                    + description.partitions().size() + " partitions, fewer than the " + shards + " shards (intake "
                    + "partitions). Add partitions to it (kafka-topics --alter --partitions " + shards + ")");
        }
    }

    /** The topic as described, once a topic created a moment ago is known to the broker answering (up to 30 s). */
    private static TopicDescription describe(Admin admin, String topic, Time time)
            throws InterruptedException, ExecutionException, java.util.concurrent.TimeoutException {
        long deadline = time.nanoseconds() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try {
                return admin.describeTopics(List.of(topic))
                        .allTopicNames()
                        .get(30, TimeUnit.SECONDS)
                        .get(topic);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException) || time.nanoseconds() - deadline > 0) {
                    throw e;
                }
                time.sleep(200); // created, not yet in the answering broker's metadata
            }
        }
    }
}

package io.delaybridge.bridge.config;

import io.delaybridge.bridge.time.Time;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes sure the intake and deadletter topics exist before the bridge starts, and tells how many partitions the
 * intake has (one shard each).
 *
 * <p>A created intake topic uses {@code message.timestamp.type=LogAppendTime}: due times count from when the broker
 * wrote the record, immune to producers' clock skew.
 */
public final class TopicSetup {

    private static final Logger LOG = LoggerFactory.getLogger(TopicSetup.class);
    private static final long TIMEOUT_SECONDS = 30;

    private final Admin admin;
    private final Time time;

    public TopicSetup(Admin admin, Time time) {
        this.admin = admin;
        this.time = time;
    }

    /** Creates the topics if asked and missing; returns the intake topic's partition count. */
    public int prepare(
            String intakeTopic, String deadletterTopic, boolean create, int intakePartitions, int replicationFactor) {
        try {
            Set<String> existing = admin.listTopics().names().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            Optional<Short> replication =
                    replicationFactor < 0 ? Optional.empty() : Optional.of((short) replicationFactor);
            if (!existing.contains(intakeTopic)) {
                if (!create) {
                    throw new IllegalStateException("kafka.intakeTopic: topic " + intakeTopic + " does not exist and "
                            + "kafka.createTopics is false. Create the topic, or set kafka.createTopics: true");
                }
                create(new NewTopic(intakeTopic, Optional.of(intakePartitions), replication)
                        .configs(Map.of(TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG, "LogAppendTime")));
            }
            if (!existing.contains(deadletterTopic) && create) {
                create(new NewTopic(deadletterTopic, Optional.empty(), replication));
            }
            return describe(intakeTopic).partitions().size();
        } catch (ExecutionException | TimeoutException e) {
            Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
            throw new IllegalStateException(
                    "Could not prepare the topics " + intakeTopic + " and " + deadletterTopic
                            + " (kafka.bootstrapServers, kafka.common): " + cause,
                    cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while preparing the topics", e);
        }
    }

    /**
     * The topic's description. A topic created a moment ago can still be unknown to the broker that answers a
     * describe (its metadata has not reached it yet): that answer is asked again, every 100 ms, up to the timeout.
     */
    private TopicDescription describe(String topic) throws InterruptedException, ExecutionException, TimeoutException {
        long deadline = time.nanoseconds() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
        while (true) {
            try {
                return admin.describeTopics(List.of(topic))
                        .allTopicNames()
                        .get(TIMEOUT_SECONDS, TimeUnit.SECONDS)
                        .get(topic);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException) || time.nanoseconds() - deadline > 0) {
                    throw e;
                }
                time.sleep(100);
            }
        }
    }

    private void create(NewTopic topic) throws InterruptedException, ExecutionException, TimeoutException {
        try {
            admin.createTopics(List.of(topic)).all().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            LOG.info(
                    "Created topic {} ({} partitions{})",
                    topic.name(),
                    topic.numPartitions() < 0 ? "broker default" : topic.numPartitions(),
                    topic.configs() == null || topic.configs().isEmpty() ? "" : ", " + topic.configs());
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw e;
            }
        }
    }
}

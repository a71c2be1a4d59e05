package io.delaybridge.connectors.spring;

import io.delaybridge.schemas.IntakeOrigin;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiFunction;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.springframework.kafka.core.KafkaOperations;

/**
 * Where dead letters go, and their topics. Creates a dead-letter topic, before its first record, with as many partitions as the topic its records come from,
 * so a dead letter keeps its original partition (as Spring's {@code DeadLetterPublishingRecoverer} puts it) instead
 * of landing where an auto-created topic's one partition or the producer's partitioner puts it. Once per topic and
 * JVM; a topic that exists already is left as it is.
 */
final class DeadLetterTopics {

    private final KafkaOperations<?, ?> template;
    private final Set<String> ready = ConcurrentHashMap.newKeySet();

    DeadLetterTopics(KafkaOperations<?, ?> template) {
        this.template = template;
    }

    /**
     * Where a dead letter goes: {@code <original topic><suffix>} on the original (first delivery's) partition, as
     * Spring's default resolver does, or the one {@code fixed} topic on the partitioner's choice.
     *
     * @param create makes a missing topic first, or null
     */
    static BiFunction<ConsumerRecord<?, ?>, Exception, TopicPartition> destination(
            String fixed, String suffix, DeadLetterTopics create) {
        return (record, e) -> {
            IntakeOrigin origin = IntakeOrigin.parse(DelayBridgeRecoverer.origin(record));
            if (origin == null) { // an origin header someone else wrote
                origin = new IntakeOrigin(record.topic(), record.partition(), record.offset());
            }
            TopicPartition to = fixed != null
                    ? new TopicPartition(fixed, -1)
                    : new TopicPartition(origin.topic() + suffix, origin.partition());
            if (create != null) {
                create.ensure(origin.topic(), to.topic());
            }
            return to;
        };
    }

    /** Makes sure {@code deadLetter} exists, created with the partition count of {@code source} if it did not. */
    void ensure(String source, String deadLetter) {
        if (ready.contains(deadLetter)) {
            return;
        }
        try (Admin admin = Admin.create(adminConfig())) {
            int partitions = admin.describeTopics(List.of(source))
                    .allTopicNames()
                    .get(30, TimeUnit.SECONDS)
                    .get(source)
                    .partitions()
                    .size();
            try {
                admin.createTopics(List.of(new NewTopic(deadLetter, Optional.of(partitions), Optional.empty())))
                        .all()
                        .get(30, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw e;
                }
            }
            ready.add(deadLetter);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KafkaException("interrupted while creating the dead-letter topic " + deadLetter, e);
        } catch (ExecutionException | TimeoutException e) {
            throw new KafkaException(
                    "could not create the dead-letter topic " + deadLetter + " with the partitions of " + source
                            + " (dead-letter create-topic is on); create it, or give the template's user the right"
                            + " to create topics: " + e,
                    e);
        }
    }

    /** The template's producer settings a client of any kind understands (bootstrap, security, ...). */
    private Map<String, Object> adminConfig() {
        Map<String, Object> config = new HashMap<>();
        Set<String> known = AdminClientConfig.configNames();
        template.getProducerFactory().getConfigurationProperties().forEach((k, v) -> {
            if (known.contains(k)) {
                config.put(k, v);
            }
        });
        return config;
    }
}

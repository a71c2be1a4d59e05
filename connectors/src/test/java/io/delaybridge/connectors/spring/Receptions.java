package io.delaybridge.connectors.spring;

import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringDeserializer;

/** What a test listener received, when; and a reader of whole topics (a dead-letter topic, the intake). */
final class Receptions {

    /** One call of the listener: the record and the wall-clock time it was handed over. */
    record Reception(ConsumerRecord<String, String> record, long receivedAt) {
        String header(String name) {
            return Receptions.header(record, name);
        }
    }

    private final List<Reception> all = new CopyOnWriteArrayList<>();

    void add(ConsumerRecord<String, String> record) {
        all.add(new Reception(record, System.currentTimeMillis()));
    }

    List<Reception> all() {
        return List.copyOf(all);
    }

    int size() {
        return all.size();
    }

    static String header(ConsumerRecord<?, ?> record, String name) {
        Header h = record.headers().lastHeader(name);
        return h == null || h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    /**
     * Waits until {@code topic} exists and holds a record matching {@code wanted}, then returns every record of
     * it that matches. Never creates the topic.
     */
    static List<ConsumerRecord<String, String>> awaitRecords(
            String bootstrap, String topic, Predicate<ConsumerRecord<String, String>> wanted, Duration timeout) {
        List<ConsumerRecord<String, String>> found = new ArrayList<>();
        await().atMost(timeout).pollInterval(Duration.ofMillis(100)).until(() -> {
            found.clear();
            found.addAll(readAll(bootstrap, topic, wanted));
            return !found.isEmpty();
        });
        return found;
    }

    /** Every record of {@code topic} (all partitions, from the beginning to the end now) that matches. */
    static List<ConsumerRecord<String, String>> readAll(
            String bootstrap, String topic, Predicate<ConsumerRecord<String, String>> wanted) {
        return readAll(bootstrap, topic, wanted, "read_uncommitted");
    }

    /**
     * As {@link #readAll(String, String, Predicate)}, with an isolation level: {@code read_committed} leaves out
     * records of aborted (and still open) transactions, {@code read_uncommitted} shows them.
     */
    static List<ConsumerRecord<String, String>> readAll(
            String bootstrap, String topic, Predicate<ConsumerRecord<String, String>> wanted, String isolationLevel) {
        Properties props = new Properties();
        props.putAll(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap,
                ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG,
                "false",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                "false",
                ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                isolationLevel));
        List<ConsumerRecord<String, String>> out = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer =
                new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer())) {
            if (!consumer.listTopics(Duration.ofSeconds(5)).containsKey(topic)) {
                return out;
            }
            List<TopicPartition> partitions = new ArrayList<>();
            for (PartitionInfo p : consumer.partitionsFor(topic, Duration.ofSeconds(5))) {
                partitions.add(new TopicPartition(topic, p.partition()));
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            long deadline = System.currentTimeMillis() + 10_000;
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))
                    && System.currentTimeMillis() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    if (wanted.test(r)) {
                        out.add(r);
                    }
                }
            }
        }
        return out;
    }
}

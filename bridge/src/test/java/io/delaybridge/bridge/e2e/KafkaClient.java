package io.delaybridge.bridge.e2e;

import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** What a test needs from Kafka: topics, a producer to the intake, and collectors on the targets. */
final class KafkaClient implements AutoCloseable {

    private final String bootstrap;
    private final Admin admin;
    private final KafkaProducer<byte[], byte[]> producer;
    private final List<Collector> collectors = new ArrayList<>();

    KafkaClient(String bootstrap) {
        this.bootstrap = bootstrap;
        Properties adminProps = new Properties();
        adminProps.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        this.admin = Admin.create(adminProps);
        Properties producerProps = new Properties();
        producerProps.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        producerProps.put(ProducerConfig.LINGER_MS_CONFIG, "1");
        producerProps.put(ProducerConfig.ACKS_CONFIG, "all");
        this.producer = new KafkaProducer<>(producerProps, new ByteArraySerializer(), new ByteArraySerializer());
    }

    void createTopics(int partitions, String... names) {
        createTopics(partitions, Map.of(), names);
    }

    /** An intake topic with CreateTime: the producer's timestamps count, so tests can date records in the past. */
    void createIntakeWithCreateTime(String name, int partitions) {
        createTopics(partitions, Map.of(TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG, "CreateTime"), name);
    }

    private void createTopics(int partitions, Map<String, String> configs, String... names) {
        List<NewTopic> topics = Arrays.stream(names)
                .map(name -> new NewTopic(name, Optional.of(partitions), Optional.empty()).configs(configs))
                .toList();
        try {
            admin.createTopics(topics).all().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("could not create topics " + List.of(names), e);
        }
        // a new topic's metadata reaches the broker's cache a moment after the create returns
        await().atMost(Duration.ofSeconds(30))
                .ignoreExceptions()
                .until(() ->
                        admin.describeTopics(List.of(names)).allTopicNames().get(5, TimeUnit.SECONDS).values().stream()
                                .allMatch(d -> d.partitions().size() == partitions
                                        && d.partitions().stream().allMatch(p -> p.leader() != null)));
    }

    /** Sends and waits for the broker's acknowledgement; the metadata carries the timestamp the due time counts from. */
    RecordMetadata send(String topic, String key, String value, Long timestamp, String... headerPairs) {
        return send(
                topic,
                key == null ? null : key.getBytes(StandardCharsets.UTF_8),
                value == null ? null : value.getBytes(StandardCharsets.UTF_8),
                timestamp,
                headers(headerPairs));
    }

    RecordMetadata send(String topic, byte[] key, byte[] value, Long timestamp, List<Header> headers) {
        return send(topic, null, key, value, timestamp, headers);
    }

    RecordMetadata send(
            String topic, Integer partition, byte[] key, byte[] value, Long timestamp, List<Header> headers) {
        try {
            return producer.send(new ProducerRecord<>(topic, partition, timestamp, key, value, headers))
                    .get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("send to " + topic + " failed", e);
        }
    }

    /** Sends without waiting; call {@link #flush()} before relying on them. */
    java.util.concurrent.Future<RecordMetadata> sendAsync(String topic, String key, String value, String... pairs) {
        return producer.send(new ProducerRecord<>(topic, null, null, bytes(key), bytes(value), headers(pairs)));
    }

    /** A topic's effective configuration value, e.g. {@code message.timestamp.type}. */
    String topicConfig(String topic, String name) {
        try {
            org.apache.kafka.common.config.ConfigResource resource = new org.apache.kafka.common.config.ConfigResource(
                    org.apache.kafka.common.config.ConfigResource.Type.TOPIC, topic);
            return admin.describeConfigs(List.of(resource))
                    .all()
                    .get(30, TimeUnit.SECONDS)
                    .get(resource)
                    .get(name)
                    .value();
        } catch (Exception e) {
            throw new IllegalStateException("could not describe the configuration of " + topic, e);
        }
    }

    /** Partitions assigned to each member of a consumer group, as the group coordinator sees them now. */
    List<Integer> groupAssignmentSizes(String group) {
        try {
            return admin
                    .describeConsumerGroups(List.of(group))
                    .all()
                    .get(10, TimeUnit.SECONDS)
                    .get(group)
                    .members()
                    .stream()
                    .map(m -> m.assignment().topicPartitions().size())
                    .sorted()
                    .toList();
        } catch (Exception e) {
            throw new IllegalStateException("could not describe group " + group, e);
        }
    }

    /** The offsets a consumer group has committed, by partition of {@code topic}; absent: none committed. */
    Map<Integer, Long> committedOffsets(String group, String topic) {
        try {
            Map<Integer, Long> offsets = new java.util.TreeMap<>();
            admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata()
                    .get(10, TimeUnit.SECONDS)
                    .forEach((partition, offset) -> {
                        if (partition.topic().equals(topic) && offset != null) {
                            offsets.put(partition.partition(), offset.offset());
                        }
                    });
            return offsets;
        } catch (Exception e) {
            throw new IllegalStateException("could not read the committed offsets of group " + group, e);
        }
    }

    /**
     * Sets the committed offsets of {@code group} (which has no member now) for partitions of {@code topic}, each with
     * the metadata it has now: what a group coordinator that lost commits would answer.
     */
    void rewindCommittedOffsets(String group, String topic, Map<Integer, Long> offsets) {
        try {
            Map<TopicPartition, OffsetAndMetadata> now = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata()
                    .get(10, TimeUnit.SECONDS);
            Map<TopicPartition, OffsetAndMetadata> rewound = new HashMap<>();
            offsets.forEach((partition, offset) -> {
                TopicPartition tp = new TopicPartition(topic, partition);
                OffsetAndMetadata current = now.get(tp);
                rewound.put(tp, new OffsetAndMetadata(offset, current == null ? "" : current.metadata()));
            });
            admin.alterConsumerGroupOffsets(group, rewound).all().get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("could not set the committed offsets of group " + group, e);
        }
    }

    void flush() {
        producer.flush();
    }

    static List<Header> headers(String... pairs) {
        List<Header> headers = new ArrayList<>();
        for (int i = 0; i < pairs.length; i += 2) {
            headers.add(new RecordHeader(pairs[i], bytes(pairs[i + 1])));
        }
        return headers;
    }

    static byte[] bytes(String text) {
        return text == null ? null : text.getBytes(StandardCharsets.UTF_8);
    }

    /** Reads the given topics from the beginning into memory, on its own thread, until closed. */
    Collector collect(String... topics) {
        Collector collector = new Collector(bootstrap, List.of(topics), admin, "read_uncommitted");
        collectors.add(collector);
        return collector;
    }

    /** As {@link #collect}, as a {@code read_committed} consumer: what aborted transactions held is never seen. */
    Collector collectCommitted(String... topics) {
        Collector collector = new Collector(bootstrap, List.of(topics), admin, "read_committed");
        collectors.add(collector);
        return collector;
    }

    @Override
    public void close() {
        collectors.forEach(Collector::close);
        producer.close(Duration.ofSeconds(5));
        admin.close(Duration.ofSeconds(5));
    }

    /** A record as received, with the local time it arrived. */
    record Received(ConsumerRecord<byte[], byte[]> record, long receivedAt) {
        String header(String name) {
            Header header = record.headers().lastHeader(name);
            return header == null || header.value() == null ? null : new String(header.value(), StandardCharsets.UTF_8);
        }

        String key() {
            return record.key() == null ? null : new String(record.key(), StandardCharsets.UTF_8);
        }

        String value() {
            return record.value() == null ? null : new String(record.value(), StandardCharsets.UTF_8);
        }

        String topic() {
            return record.topic();
        }
    }

    static final class Collector implements AutoCloseable {
        private final List<Received> received = new CopyOnWriteArrayList<>();
        private final KafkaConsumer<byte[], byte[]> consumer;
        private final Thread thread;
        private volatile boolean running = true;

        Collector(String bootstrap, List<String> topics, Admin admin, String isolationLevel) {
            Properties props = new Properties();
            props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolationLevel);
            props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
            consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
            List<TopicPartition> partitions = new ArrayList<>();
            // topics the bridge created a moment ago may not be described yet
            await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> {
                partitions.clear();
                admin.describeTopics(topics)
                        .allTopicNames()
                        .get(5, TimeUnit.SECONDS)
                        .forEach((name, d) ->
                                d.partitions().forEach(p -> partitions.add(new TopicPartition(name, p.partition()))));
                return true;
            });
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            thread = new Thread(this::run, "collector-" + topics);
            thread.setDaemon(true);
            thread.start();
        }

        private void run() {
            try {
                while (running) {
                    for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(50))) {
                        received.add(new Received(record, System.currentTimeMillis()));
                    }
                }
            } catch (org.apache.kafka.common.errors.WakeupException e) {
                // closing
            } finally {
                consumer.close(Duration.ofSeconds(2));
            }
        }

        List<Received> received() {
            return List.copyOf(received);
        }

        /** The distinct values received (each record once, however many copies came). */
        java.util.Set<String> values() {
            java.util.Set<String> values = new java.util.HashSet<>();
            received.forEach(r -> values.add(r.value()));
            return values;
        }

        List<Received> matching(Predicate<Received> filter) {
            return received.stream().filter(filter).toList();
        }

        int size() {
            return received.size();
        }

        @Override
        public void close() {
            running = false;
            consumer.wakeup();
            try {
                thread.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}

package io.delaybridge.bridge.delivery;

import io.delaybridge.bridge.time.Time;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The delivered log: a compacted topic with one partition per shard, where each transaction writes one record per
 * shard it delivered for (key {@code shard-<n>}, partition n, value a {@link DeliveredRecord}) in the same transaction
 * as its deliveries. What a shard's new owner must know is the last committed record of the shard's partition, and
 * what other writers committed since its own last read ({@link #read}); with compaction keeping one record per key,
 * that is a read of the partition's last few offsets ({@code read_committed}, so an aborted transaction's record is
 * never seen), however long the bridge has run.
 */
public final class DeliveredLog implements ShardLog, AutoCloseable {

    /** How far back from the end the first read starts: a record and a commit marker per transaction. */
    private static final int TAIL = 32;

    private static final Duration POLL = Duration.ofMillis(200);

    private final String topic;
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final long readTimeoutMillis;
    private final Time time;

    /**
     * @param consumerProperties connection settings; group, offsets and isolation are set here ({@code read_committed},
     *                           no group: the partition is assigned, never committed)
     */
    public DeliveredLog(String topic, Properties consumerProperties, long readTimeoutMillis, Time time) {
        this.time = time;
        this.topic = topic;
        this.readTimeoutMillis = readTimeoutMillis;
        Properties properties = new Properties();
        properties.putAll(consumerProperties);
        properties.remove(ConsumerConfig.GROUP_ID_CONFIG);
        properties.remove(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG);
        properties.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        properties.put(ConsumerConfig.CLIENT_ID_CONFIG, topic + "-reader");
        // a read ends past the last transaction's commit marker, which only a fetch with nothing more to return gets
        // past: a shard's open (every shard a new owner takes, one after the other) would wait a fetch's longest wait
        properties.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "5");
        this.consumer = new KafkaConsumer<>(properties, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    public String topic() {
        return topic;
    }

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

    /** The record a transaction of {@code shard} writes, listing {@code value}. */
    @Override
    public ProducerRecord<byte[], byte[]> record(int shard, byte[] value) {
        return new ProducerRecord<>(topic, shard, key(shard), value);
    }

    /**
     * What the last committed record of {@code shard} says; no messages and no floor if it has none. Reads up to the
     * last stable offset: a transaction of an earlier owner still open is not waited for (called after the shard's
     * producer was initialized, none is).
     */
    @Override
    public synchronized DeliveredRecord.Contents latest(int shard) {
        TopicPartition partition = new TopicPartition(topic, shard);
        consumer.assign(List.of(partition));
        long begin = consumer.beginningOffsets(List.of(partition)).get(partition);
        long end = consumer.endOffsets(List.of(partition)).get(partition); // read_committed: the last stable offset
        long deadline = time.nanoseconds() + TimeUnit.MILLISECONDS.toNanos(readTimeoutMillis);
        long from = Math.max(begin, end - TAIL);
        while (true) {
            byte[] last = lastValue(partition, from, end, deadline);
            if (last != null) {
                return DeliveredRecord.decode(last);
            }
            if (from <= begin) {
                return DeliveredRecord.Contents.EMPTY;
            }
            long stepped = end - from;
            from = Math.max(begin, from - stepped * 4); // aborted transactions at the tail: look further back
        }
    }

    @Override
    public synchronized Read read(int shard, long from) {
        TopicPartition partition = new TopicPartition(topic, shard);
        consumer.assign(List.of(partition));
        long end = consumer.endOffsets(List.of(partition)).get(partition); // read_committed: the last stable offset
        if (from < 0) {
            return new Read(latest(shard), end);
        }
        long begin = consumer.beginningOffsets(List.of(partition)).get(partition);
        long deadline = time.nanoseconds() + TimeUnit.MILLISECONDS.toNanos(readTimeoutMillis);
        java.util.Map<String, Sends.Message> messages = new java.util.LinkedHashMap<>();
        long[] floor = {-1};
        readRange(partition, Math.max(begin, from), end, deadline, value -> {
            DeliveredRecord.Contents contents = DeliveredRecord.decode(value);
            contents.messages().forEach(message -> messages.put(message.id(), message));
            floor[0] = Math.max(floor[0], contents.intakeFloor());
        });
        return new Read(new DeliveredRecord.Contents(List.copyOf(messages.values()), floor[0]), end);
    }

    private byte[] lastValue(TopicPartition partition, long from, long end, long deadline) {
        byte[][] last = {null};
        readRange(partition, from, end, deadline, value -> last[0] = value);
        return last[0];
    }

    /** Hands each committed value of {@code partition} from {@code from} to {@code end} (excluded) to {@code each}. */
    private void readRange(
            TopicPartition partition, long from, long end, long deadline, java.util.function.Consumer<byte[]> each) {
        consumer.seek(partition, from);
        while (consumer.position(partition) < end) {
            if (time.nanoseconds() - deadline > 0) {
                throw new org.apache.kafka.common.errors.TimeoutException("reading the delivered log " + partition
                        + " from " + from + " to " + end + " took longer than " + readTimeoutMillis + " ms");
            }
            for (ConsumerRecord<byte[], byte[]> record : consumer.poll(POLL).records(partition)) {
                if (record.offset() < end && record.value() != null) {
                    each.accept(record.value());
                }
            }
        }
    }

    private static byte[] key(int shard) {
        return ("shard-" + shard).getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    @Override
    public synchronized void close() {
        consumer.close();
    }
}

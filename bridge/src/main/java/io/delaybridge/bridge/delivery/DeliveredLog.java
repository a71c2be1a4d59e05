package io.delaybridge.bridge.delivery;

import io.delaybridge.bridge.time.Time;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The delivered log: a compacted topic with one partition per shard, where each transaction writes one record per
 * shard it delivered for (key {@code shard-<n>-<slot>}, partition n, value a {@link DeliveredRecord}) in the same
 * transaction as its deliveries. What a shard's new owner must know is the last committed record of the shard's
 * partition with the records it points to ({@link LoggedRecords}), and what other writers committed since its own last
 * read ({@link #read}); with compaction keeping one record per key and a pointer reaching at most
 * {@value LoggedRecords#SLOTS} records back, that is a read of the partition's last offsets ({@code read_committed}, so
 * an aborted transaction's record is never seen), however long the bridge has run.
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

    /** The record a transaction of {@code shard} writes, listing {@code value}, its key taking {@code slot}. */
    @Override
    public ProducerRecord<byte[], byte[]> record(int shard, int slot, byte[] value) {
        return new ProducerRecord<>(topic, shard, key(shard, slot), value);
    }

    /**
     * What the last committed records of {@code shard} say, with the records they point to; no messages and no floor
     * if it has none. Reads up to the last stable offset: a transaction of an earlier owner still open is not waited for
     * (called after the shard's producer was initialized, none is).
     */
    @Override
    public DeliveredRecord.Contents latest(int shard) {
        return read(shard, -1).contents();
    }

    @Override
    public synchronized Read read(int shard, long from) {
        TopicPartition partition = new TopicPartition(topic, shard);
        consumer.assign(List.of(partition));
        long end = consumer.endOffsets(List.of(partition)).get(partition); // read_committed: the last stable offset
        long begin = consumer.beginningOffsets(List.of(partition)).get(partition);
        long deadline = time.nanoseconds() + TimeUnit.MILLISECONDS.toNanos(readTimeoutMillis);
        // with no offset, the tail: its last record, and the newest of every chain in it (a record of a shard moved
        // away during its transaction lists only that transaction's deliveries, in a chain of its own)
        long start = from >= 0 ? Math.max(begin, from) : tail(partition, begin, end, deadline);
        // offset -> what the record there says; the records read, then those they point to before them, and so on
        java.util.TreeMap<Long, DeliveredRecord.Contents> found = new java.util.TreeMap<>();
        long to = end;
        while (start < to) {
            readRange(
                    partition,
                    start,
                    to,
                    deadline,
                    (offset, value) -> found.put(offset, DeliveredRecord.decode(value)));
            to = start;
            start = Math.max(begin, Math.min(to, pointed(found)));
        }
        java.util.Map<String, Sends.Message> messages = new java.util.LinkedHashMap<>();
        long floor = -1;
        for (DeliveredRecord.Contents contents : found.values()) {
            contents.messages().forEach(message -> messages.put(message.id(), message));
            floor = Math.max(floor, contents.intakeFloor());
        }
        return new Read(new DeliveredRecord.Contents(List.copyOf(messages.values()), floor), end);
    }

    /**
     * The lowest offset the newest record of each chain among {@code found} points to ({@link DeliveredRecord}); an
     * older record's pointer is older news. {@link Long#MAX_VALUE} if none points anywhere.
     */
    private static long pointed(java.util.NavigableMap<Long, DeliveredRecord.Contents> found) {
        java.util.Set<Long> chains = new java.util.HashSet<>();
        long pointed = Long.MAX_VALUE;
        for (DeliveredRecord.Contents contents : found.descendingMap().values()) {
            if (contents.readFrom() >= 0 && chains.add(contents.chain())) {
                pointed = Math.min(pointed, contents.readFrom());
            }
        }
        return pointed;
    }

    /**
     * Where the partition's tail begins: {@value #TAIL} offsets before {@code end}, or further back until a committed
     * record is in it (aborted transactions at the tail); {@code end} if there is none.
     */
    private long tail(TopicPartition partition, long begin, long end, long deadline) {
        long from = Math.max(begin, end - TAIL);
        while (true) {
            boolean[] any = {false};
            readRange(partition, from, end, deadline, (offset, value) -> any[0] = true);
            if (any[0]) {
                return from;
            }
            if (from <= begin) {
                return end;
            }
            long stepped = end - from;
            from = Math.max(begin, from - stepped * 4);
        }
    }

    /** What {@link #readRange} hands on: a committed record's offset and value. */
    private interface Found {
        void accept(long offset, byte[] value);
    }

    /** Hands each committed value of {@code partition} from {@code from} to {@code end} (excluded) to {@code each}. */
    private void readRange(TopicPartition partition, long from, long end, long deadline, Found each) {
        consumer.seek(partition, from);
        while (consumer.position(partition) < end) {
            if (time.nanoseconds() - deadline > 0) {
                throw new org.apache.kafka.common.errors.TimeoutException("reading the delivered log " + partition
                        + " from " + from + " to " + end + " took longer than " + readTimeoutMillis + " ms");
            }
            for (ConsumerRecord<byte[], byte[]> record : consumer.poll(POLL).records(partition)) {
                if (record.offset() < end && record.value() != null) {
                    each.accept(record.offset(), record.value());
                }
            }
        }
    }

    private static byte[] key(int shard, int slot) {
        return ("shard-" + shard + "-" + slot).getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    @Override
    public synchronized void close() {
        consumer.close();
    }
}

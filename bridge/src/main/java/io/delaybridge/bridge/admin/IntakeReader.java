package io.delaybridge.bridge.admin;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads single records of the intake topic by position, for the operator's views and actions on far records (whose
 * payload waits in the intake's log, not in Redis): one consumer without a group ({@code assign}/{@code seek}, never a
 * commit), {@code read_committed} like the intake, shared by the API's requests one at a time and created on first use.
 *
 * <p>A position the log no longer holds (deleted by retention, an aborted transaction's record, a transaction marker)
 * is missing from the answer, never an error.
 */
public final class IntakeReader implements AutoCloseable {

    /** Where a record waits in the intake: partition and offset. */
    public record Position(int partition, long offset) implements Comparable<Position> {
        @Override
        public int compareTo(Position other) {
            int byPartition = Integer.compare(partition, other.partition);
            return byPartition != 0 ? byPartition : Long.compare(offset, other.offset);
        }
    }

    /** The intake could not be read within the time given. */
    public static final class IntakeReadException extends RuntimeException {
        IntakeReadException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** Offsets closer than this to the last record read are reached by reading on rather than by a new seek. */
    private static final long READ_ON_GAP = 500;

    private final String topic;
    private final Properties properties;
    private final long timeoutMillis;
    private KafkaConsumer<byte[], byte[]> consumer;

    /**
     * @param consumerProperties the bridge's consumer settings (connection, security); the group and commits are
     *                           removed here
     * @param timeoutMillis      how long one {@link #read} may take in all
     */
    public IntakeReader(String topic, Properties consumerProperties, long timeoutMillis) {
        this.topic = topic;
        this.timeoutMillis = timeoutMillis;
        this.properties = new Properties();
        properties.putAll(consumerProperties);
        properties.remove(ConsumerConfig.GROUP_ID_CONFIG);
        properties.remove(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG);
        properties.remove(ConsumerConfig.GROUP_PROTOCOL_CONFIG);
        properties.remove(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG);
        properties.remove(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG);
        properties.remove(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG);
        properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        properties.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        properties.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        properties.put(ConsumerConfig.CLIENT_ID_CONFIG, topic + "-admin-reader");
    }

    public String topic() {
        return topic;
    }

    /** The record at one position, or null if the log does not hold it. */
    public ConsumerRecord<byte[], byte[]> read(int partition, long offset) {
        return read(List.of(new Position(partition, offset))).get(new Position(partition, offset));
    }

    /**
     * The records at these positions that the log holds, read in (partition, offset) order: a seek per partition and
     * per gap, reading on over near offsets.
     *
     * @throws IntakeReadException if the reads take longer than the timeout given at construction
     */
    public synchronized Map<Position, ConsumerRecord<byte[], byte[]>> read(List<Position> positions) {
        if (positions.isEmpty()) {
            return Map.of();
        }
        try {
            return readSorted(positions);
        } catch (KafkaException e) {
            throw new IntakeReadException("could not read the intake " + topic + ": " + e.getMessage(), e);
        } finally {
            if (consumer != null) {
                consumer.assign(List.of());
            }
        }
    }

    private Map<Position, ConsumerRecord<byte[], byte[]>> readSorted(List<Position> positions) {
        Map<Position, ConsumerRecord<byte[], byte[]>> found = new HashMap<>();
        Map<Integer, TreeSet<Long>> wanted = new TreeMap<>();
        positions.forEach(
                p -> wanted.computeIfAbsent(p.partition(), x -> new TreeSet<>()).add(p.offset()));
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        KafkaConsumer<byte[], byte[]> c = consumer();
        for (Map.Entry<Integer, TreeSet<Long>> e : wanted.entrySet()) {
            TopicPartition tp = new TopicPartition(topic, e.getKey());
            c.assign(List.of(tp));
            long end = c.endOffsets(List.of(tp), remaining(deadline, false)).get(tp);
            TreeSet<Long> offsets = new TreeSet<>(e.getValue().headSet(end)); // beyond the end: not written
            long next = -1; // where the consumer reads next, -1 before the first seek
            while (!offsets.isEmpty()) {
                long first = offsets.first();
                if (next < 0 || first < next || first - next > READ_ON_GAP) {
                    c.seek(tp, first);
                }
                List<ConsumerRecord<byte[], byte[]>> batch = poll(c, tp, deadline);
                if (batch.isEmpty()) {
                    next = c.position(tp, remaining(deadline, false));
                    if (next >= end) {
                        break; // read to the end: what is left is not in the log
                    }
                    continue;
                }
                for (ConsumerRecord<byte[], byte[]> r : batch) {
                    if (offsets.remove(r.offset())) {
                        found.put(new Position(e.getKey(), r.offset()), r);
                    }
                }
                next = batch.get(batch.size() - 1).offset() + 1;
                offsets.headSet(next).clear(); // passed without a record: not in the log any more
            }
        }
        return found;
    }

    private static List<ConsumerRecord<byte[], byte[]>> poll(
            KafkaConsumer<byte[], byte[]> c, TopicPartition tp, long deadline) {
        List<ConsumerRecord<byte[], byte[]>> records =
                new ArrayList<>(c.poll(remaining(deadline, true)).records(tp));
        if (records.isEmpty() && System.nanoTime() - deadline > 0) {
            throw new IntakeReadException(
                    "could not read " + tp + " of the intake in time (the broker is slow or unreachable)", null);
        }
        return records;
    }

    /** The time left until {@code deadline}; for a poll at most a second, so that an empty poll is seen soon. */
    private static Duration remaining(long deadline, boolean poll) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
            throw new IntakeReadException("the intake was not read in time (the broker is slow or unreachable)", null);
        }
        return Duration.ofNanos(poll ? Math.min(left, TimeUnit.SECONDS.toNanos(1)) : left);
    }

    private KafkaConsumer<byte[], byte[]> consumer() {
        if (consumer == null) {
            consumer = new KafkaConsumer<>(properties, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        }
        return consumer;
    }

    @Override
    public synchronized void close() {
        if (consumer != null) {
            consumer.close();
            consumer = null;
        }
    }
}

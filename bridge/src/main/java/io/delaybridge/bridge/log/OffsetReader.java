package io.delaybridge.bridge.log;

import io.delaybridge.bridge.store.FarEntry;
import io.delaybridge.bridge.time.Time;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads intake records back by position (partition and offset), for the far tier, whose records wait in the intake's
 * log: the thaw reads an hour's records ({@link #fetch}), the operator's views and actions single records or a
 * target's ({@link #read}). One consumer without a group ({@code assign}/{@code seek}, nothing committed; the client
 * settings of {@code KafkaFactory.offsetReaderProperties}: {@code read_committed} like the intake,
 * {@code auto.offset.reset=none}), created on first use; calls are serialized, so request threads may share a reader.
 *
 * <p>Positions are read in (partition, offset) order ({@link FetchPlan#step}: read on across small gaps, or seek); a
 * position the log no longer holds (below the log start offset, past its end, or read past without being returned: an
 * aborted transaction's record, a transaction marker) is reported as such, never skipped silently and never an error.
 * A broker that does not answer in time fails the call with Kafka's {@link TimeoutException} (transient: nothing is
 * reported missing); other {@code KafkaException}s pass, {@code WakeupException} after {@link #wakeup}.
 */
public final class OffsetReader implements AutoCloseable {

    /** Where a record waits in the intake: partition and offset. */
    public record Position(int partition, long offset) implements Comparable<Position> {
        /** Where the record of a far entry waits. */
        public static Position of(FarEntry entry) {
            return new Position(entry.partition(), entry.offset());
        }

        @Override
        public int compareTo(Position other) {
            int byPartition = Integer.compare(partition, other.partition);
            return byPartition != 0 ? byPartition : Long.compare(offset, other.offset);
        }
    }

    /**
     * What a fetch found for the first {@code covered} positions of its slice: their records in slice order, and the
     * offsets the log no longer holds, per intake partition (sorted).
     */
    public record Fetched(int covered, List<ConsumerRecord<byte[], byte[]>> records, Map<Integer, List<Long>> lost) {}

    /** Read through at most this many records to the next needed offset; a larger gap is a seek. */
    static final long MAX_GAP = 500;
    /** A fetch ends after the record that brings its records (key + value + headers) to this size. */
    static final long MAX_BYTES = 4L << 20;
    /** How often one fetch looks up a moved log start again before it gives up (and is retried later). */
    private static final int MAX_OUT_OF_RANGE = 3;

    private final Time time;
    private final Supplier<Consumer<byte[], byte[]>> consumers;
    private final String topic;
    private final Duration callTimeout;
    private final Duration pollTimeout;
    private volatile Consumer<byte[], byte[]> consumer;
    private volatile boolean wokenUp;

    /** The partition being read, the offset it was last sought to, and what the last poll returned not yet used. */
    private TopicPartition current;

    private long readFrom;
    /** The highest offset polled since the last seek (-1: none). */
    private long readUpTo = -1;

    private final Deque<ConsumerRecord<byte[], byte[]>> buffer = new ArrayDeque<>();
    private ConsumerRecord<byte[], byte[]> last;

    /**
     * @param properties  an offset reader's client settings ({@code KafkaFactory.offsetReaderProperties})
     * @param callTimeout how long a look-up of log offsets, or polls that return nothing while records are needed, may
     *                    take before the call fails with {@link TimeoutException}
     */
    public OffsetReader(Properties properties, String topic, Duration callTimeout, Time time) {
        this(
                () -> new KafkaConsumer<>(properties, new ByteArrayDeserializer(), new ByteArrayDeserializer()),
                topic,
                callTimeout,
                time);
    }

    OffsetReader(Supplier<Consumer<byte[], byte[]>> consumers, String topic, Duration callTimeout, Time time) {
        this.time = time;
        this.consumers = consumers;
        this.topic = topic;
        this.callTimeout = callTimeout;
        this.pollTimeout = Duration.ofMillis(Math.min(500, callTimeout.toMillis()));
    }

    public String topic() {
        return topic;
    }

    /**
     * Reads the records at the positions of {@code slice} (sorted by partition, offset), in order, until all are read
     * or the records read reach {@value #MAX_BYTES} bytes (at least one is always read): the thaw's reads.
     */
    public synchronized Fetched fetch(List<Position> slice) {
        return guarded(() -> fetch(slice, null));
    }

    /**
     * The records at {@code positions} (in any order) that the log holds; a position it does not hold is absent. All of
     * it within {@code timeout}, else {@link TimeoutException}.
     */
    public synchronized Map<Position, ConsumerRecord<byte[], byte[]>> read(
            Collection<Position> positions, Duration timeout) {
        List<Position> sorted = new ArrayList<>(new TreeSet<>(positions));
        Long deadline = time.nanoseconds() + timeout.toNanos();
        Map<Position, ConsumerRecord<byte[], byte[]>> found = new HashMap<>();
        return guarded(() -> {
            for (int i = 0; i < sorted.size(); ) {
                Fetched fetched = fetch(sorted.subList(i, sorted.size()), deadline);
                fetched.records().forEach(r -> found.put(new Position(r.partition(), r.offset()), r));
                i += fetched.covered();
            }
            return found;
        });
    }

    /** Makes a call under way (or the next) end with {@code WakeupException}: the thaw stops. */
    public void wakeup() {
        wokenUp = true;
        Consumer<byte[], byte[]> c = consumer;
        if (c != null) {
            c.wakeup();
        }
    }

    @Override
    public synchronized void close() {
        if (consumer != null) {
            consumer.close(Duration.ofSeconds(5));
            consumer = null;
            current = null;
        }
    }

    /** Runs a read; after a failure the next read starts with a seek. */
    private <T> T guarded(Supplier<T> read) {
        try {
            return read.get();
        } catch (RuntimeException e) {
            current = null;
            buffer.clear();
            last = null;
            throw e;
        }
    }

    /** {@code deadline}: the {@link Time#nanoseconds} by which the whole read ends, or null: each its own timeout. */
    private Fetched fetch(List<Position> slice, Long deadline) {
        Set<TopicPartition> partitions = new HashSet<>();
        slice.forEach(position -> partitions.add(partition(position.partition())));
        Map<TopicPartition, Long> starts = new HashMap<>(offsets(partitions, true, deadline));
        Map<TopicPartition, Long> ends = offsets(partitions, false, deadline);
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        Map<Integer, List<Long>> lost = new TreeMap<>();
        long bytes = 0;
        int i = 0;
        int outOfRange = 0;
        while (i < slice.size() && (bytes < MAX_BYTES || records.isEmpty())) {
            Position position = slice.get(i);
            TopicPartition partition = partition(position.partition());
            ConsumerRecord<byte[], byte[]> found = null;
            if (position.offset() >= starts.get(partition) && position.offset() < ends.get(partition)) {
                // a call may ask again for what an earlier one read (the thaw retries a slice whose store failed)
                boolean firstOfPartition = i == 0 || slice.get(i - 1).partition() != position.partition();
                try {
                    found = next(partition, position.offset(), firstOfPartition, deadline);
                } catch (OffsetOutOfRangeException e) {
                    // the log start moved past the position while reading: learn where it is now, and try again
                    if (++outOfRange > MAX_OUT_OF_RANGE) {
                        throw new KafkaException(
                                "intake partition " + position.partition() + " keeps refusing offset "
                                        + position.offset() + " as out of range: " + e.getMessage(),
                                e);
                    }
                    starts.put(
                            partition,
                            offsets(Set.of(partition), true, deadline).get(partition));
                    current = null;
                    continue;
                }
            }
            if (found != null) {
                records.add(found);
                bytes += RecordTranslator.sizeOf(found);
            } else {
                lost.computeIfAbsent(position.partition(), p -> new ArrayList<>())
                        .add(position.offset());
            }
            i++;
        }
        return new Fetched(i, records, lost);
    }

    /**
     * The record at {@code offset} of {@code partition}, read on from the position or sought; null: gone. {@code
     * firstOfPartition}: the call's first position of the partition, which may lie behind what an earlier call read (a
     * retried slice): then it is sought again, not taken for read past.
     */
    private ConsumerRecord<byte[], byte[]> next(
            TopicPartition partition, long offset, boolean firstOfPartition, Long deadline) {
        if (last != null && partition.equals(current) && last.offset() == offset) {
            return last; // a position asked for twice: the same record
        }
        Consumer<byte[], byte[]> c = consumer();
        if (!partition.equals(current)) {
            c.assign(List.of(partition));
            seek(partition, offset);
        } else if (firstOfPartition && offset <= readUpTo) {
            seek(partition, offset);
        }
        long stalledSince = time.nanoseconds();
        while (true) {
            while (!buffer.isEmpty() && buffer.peekFirst().offset() < offset) {
                buffer.pollFirst();
            }
            if (!buffer.isEmpty()) {
                if (buffer.peekFirst().offset() != offset) {
                    return null; // the log went on past the offset without it
                }
                last = buffer.pollFirst();
                return last;
            }
            switch (FetchPlan.step(readFrom, c.position(partition, timeLeft(deadline)), offset, MAX_GAP)) {
                case SKIPPED:
                    return null;
                case SEEK:
                    seek(partition, offset);
                    break;
                case READ_ON:
                    break;
            }
            Duration poll = timeLeft(deadline);
            List<ConsumerRecord<byte[], byte[]>> polled =
                    c.poll(poll.compareTo(pollTimeout) < 0 ? poll : pollTimeout).records(partition);
            if (!polled.isEmpty()) {
                buffer.addAll(polled);
                readUpTo = Math.max(readUpTo, polled.get(polled.size() - 1).offset());
                stalledSince = time.nanoseconds();
            } else if (time.nanoseconds() - stalledSince > callTimeout.toNanos()) {
                throw new TimeoutException("intake partition " + partition.partition() + " returned no record at "
                        + "offset " + offset + " within " + callTimeout.toMillis() + " ms");
            }
        }
    }

    private void seek(TopicPartition partition, long offset) {
        consumer().seek(partition, offset);
        current = partition;
        readFrom = offset;
        readUpTo = -1;
        buffer.clear();
        last = null;
    }

    /** The log start (or, with {@code start} false, end) offsets of {@code partitions}. */
    private Map<TopicPartition, Long> offsets(Set<TopicPartition> partitions, boolean start, Long deadline) {
        Duration timeout = timeLeft(deadline);
        try {
            return start
                    ? consumer().beginningOffsets(partitions, timeout)
                    : consumer().endOffsets(partitions, timeout);
        } catch (TimeoutException e) {
            throw new TimeoutException(
                    "the intake's " + (start ? "log start" : "end") + " offsets of partitions " + partitions
                            + " were not known within " + timeout.toMillis() + " ms",
                    e);
        }
    }

    /** How long the next call may take: {@link #callTimeout}, or less if the read's {@code deadline} is nearer. */
    private Duration timeLeft(Long deadline) {
        if (deadline == null) {
            return callTimeout;
        }
        long left = deadline - time.nanoseconds();
        if (left <= 0) {
            throw new TimeoutException(
                    "the intake " + topic + " was not read in time (the broker is slow or " + "unreachable)");
        }
        return Duration.ofNanos(Math.min(left, callTimeout.toNanos()));
    }

    private Consumer<byte[], byte[]> consumer() {
        if (consumer == null) {
            consumer = consumers.get();
            if (wokenUp) {
                consumer.wakeup(); // woken before it existed
            }
        }
        return consumer;
    }

    private TopicPartition partition(int partition) {
        return new TopicPartition(topic, partition);
    }
}

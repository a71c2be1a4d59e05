package io.delaybridge.bridge.thaw;

import io.delaybridge.bridge.store.FarEntry;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads far records back from the intake topic by offset: one consumer without a group ({@code assign}/{@code seek},
 * nothing committed), used by the thaw thread only. A slice of an hour's entries (sorted by partition and offset) is
 * read in order ({@link FetchPlan#step}: read on, or seek); an entry whose record the log no longer holds (below the
 * log start offset, past its end, or read past without being returned) is reported lost, never skipped silently.
 */
final class IntakeFetcher implements AutoCloseable {

    /**
     * What a fetch found for the first {@code covered} entries of its slice: their records in entry order, and the
     * offsets the log no longer holds, per intake partition (sorted).
     */
    record Fetched(int covered, List<ConsumerRecord<byte[], byte[]>> records, Map<Integer, List<Long>> lost) {}

    /** The next needed record, or why there is none. */
    private sealed interface Found {}

    private record Record(ConsumerRecord<byte[], byte[]> record) implements Found {}

    private record Gone() implements Found {}

    private static final Found GONE = new Gone();
    /** How often one fetch looks up a moved log start again before it gives up (and is retried later). */
    private static final int MAX_OUT_OF_RANGE = 3;

    private final Consumer<byte[], byte[]> consumer;
    private final String topic;
    private final long maxGap;
    private final long maxBytes;
    private final Duration callTimeout;
    private final Duration pollTimeout;

    /** The partition being read, the offset it was last sought to, and what the last poll returned not yet used. */
    private TopicPartition current;

    private long readFrom;
    private final Deque<ConsumerRecord<byte[], byte[]>> buffer = new ArrayDeque<>();
    private ConsumerRecord<byte[], byte[]> last;

    /**
     * @param properties  an offset reader's client settings (no group; {@code auto.offset.reset=none})
     * @param maxGap      the most records read through to reach the next needed offset instead of seeking
     * @param maxBytes    a fetch ends after the record that brings its records (key + value + headers) to this size
     * @param callTimeout how long a look-up of log offsets, or polls that return nothing while records are needed, may
     *                    take before the fetch fails ({@link ThawFetchException}: retried, nothing is reported lost)
     */
    IntakeFetcher(Properties properties, String topic, long maxGap, long maxBytes, Duration callTimeout) {
        this(
                new KafkaConsumer<>(properties, new ByteArrayDeserializer(), new ByteArrayDeserializer()),
                topic,
                maxGap,
                maxBytes,
                callTimeout);
    }

    IntakeFetcher(Consumer<byte[], byte[]> consumer, String topic, long maxGap, long maxBytes, Duration callTimeout) {
        this.consumer = consumer;
        this.topic = topic;
        this.maxGap = maxGap;
        this.maxBytes = maxBytes;
        this.callTimeout = callTimeout;
        this.pollTimeout = Duration.ofMillis(Math.min(500, callTimeout.toMillis()));
    }

    /**
     * Reads the records of {@code slice} (sorted by partition, offset), in order, until all are read or the records
     * read reach {@link #maxBytes} (at least one is always read). Throws {@link ThawFetchException} when the broker
     * does not answer in time, {@code WakeupException} when {@link #wakeup} was called.
     */
    Fetched fetch(List<FarEntry> slice) {
        Set<TopicPartition> partitions = new HashSet<>();
        slice.forEach(entry -> partitions.add(partition(entry.partition())));
        Map<TopicPartition, Long> starts = new HashMap<>(offsets(partitions, true));
        Map<TopicPartition, Long> ends = offsets(partitions, false);
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        Map<Integer, List<Long>> lost = new TreeMap<>();
        long bytes = 0;
        int i = 0;
        int outOfRange = 0;
        while (i < slice.size() && (bytes < maxBytes || records.isEmpty())) {
            FarEntry entry = slice.get(i);
            TopicPartition partition = partition(entry.partition());
            Found found;
            if (entry.offset() < starts.get(partition) || entry.offset() >= ends.get(partition)) {
                found = GONE;
            } else {
                try {
                    found = next(partition, entry.offset());
                } catch (OffsetOutOfRangeException e) {
                    // the log start moved past the position while reading: learn where it is now, and try again
                    if (++outOfRange > MAX_OUT_OF_RANGE) {
                        throw new ThawFetchException(
                                "intake partition " + entry.partition() + " keeps refusing offset " + entry.offset()
                                        + " as out of range: " + e.getMessage(),
                                e);
                    }
                    starts.put(partition, offsets(Set.of(partition), true).get(partition));
                    current = null;
                    continue;
                }
            }
            if (found instanceof Record r) {
                records.add(r.record());
                bytes += sizeOf(r.record());
            } else {
                lost.computeIfAbsent(entry.partition(), p -> new ArrayList<>()).add(entry.offset());
            }
            i++;
        }
        return new Fetched(i, records, lost);
    }

    /** Makes a fetch under way (on the thaw thread) end with {@code WakeupException}: the bridge stops. */
    void wakeup() {
        consumer.wakeup();
    }

    @Override
    public void close() {
        consumer.close(Duration.ofSeconds(5));
    }

    /** The record at {@code offset} of {@code partition}, read on from the position or sought. */
    private Found next(TopicPartition partition, long offset) {
        if (last != null && partition.equals(current) && last.offset() == offset) {
            return new Record(last); // an entry appended twice: thawed twice, stored once
        }
        if (!partition.equals(current)) {
            consumer.assign(List.of(partition));
            seek(partition, offset);
        }
        long stalledSince = System.nanoTime();
        while (true) {
            while (!buffer.isEmpty() && buffer.peekFirst().offset() < offset) {
                buffer.pollFirst();
            }
            if (!buffer.isEmpty()) {
                ConsumerRecord<byte[], byte[]> head = buffer.peekFirst();
                if (head.offset() != offset) {
                    return GONE; // the log went on past the offset without it
                }
                last = buffer.pollFirst();
                return new Record(last);
            }
            switch (FetchPlan.step(readFrom, consumer.position(partition, callTimeout), offset, maxGap)) {
                case SKIPPED:
                    return GONE;
                case SEEK:
                    seek(partition, offset);
                    break;
                case READ_ON:
                    break;
            }
            List<ConsumerRecord<byte[], byte[]>> polled =
                    consumer.poll(pollTimeout).records(partition);
            if (!polled.isEmpty()) {
                buffer.addAll(polled);
                stalledSince = System.nanoTime();
            } else if (System.nanoTime() - stalledSince > callTimeout.toNanos()) {
                throw new ThawFetchException("intake partition " + partition.partition() + " returned no record at "
                        + "offset " + offset + " within " + callTimeout.toMillis() + " ms");
            }
        }
    }

    private void seek(TopicPartition partition, long offset) {
        consumer.seek(partition, offset);
        current = partition;
        readFrom = offset;
        buffer.clear();
        last = null;
    }

    /** The log start (or, with {@code start} false, end) offsets of {@code partitions}. */
    private Map<TopicPartition, Long> offsets(Set<TopicPartition> partitions, boolean start) {
        try {
            return start
                    ? consumer.beginningOffsets(partitions, callTimeout)
                    : consumer.endOffsets(partitions, callTimeout);
        } catch (org.apache.kafka.common.errors.TimeoutException e) {
            throw new ThawFetchException(
                    "the intake's " + (start ? "log start" : "end") + " offsets of partitions " + partitions
                            + " were not known within " + callTimeout.toMillis() + " ms",
                    e);
        }
    }

    private TopicPartition partition(int partition) {
        return new TopicPartition(topic, partition);
    }

    static long sizeOf(ConsumerRecord<byte[], byte[]> record) {
        long size = Math.max(0, record.serializedKeySize()) + (long) Math.max(0, record.serializedValueSize());
        for (Header header : record.headers()) {
            size += header.key().length() + (header.value() == null ? 0 : header.value().length);
        }
        return size;
    }
}

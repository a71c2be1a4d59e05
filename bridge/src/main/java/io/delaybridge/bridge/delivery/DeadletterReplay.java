package io.delaybridge.bridge.delivery;

import io.delaybridge.schemas.DelayHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * One replay of deadletter records into the intake: reads the deadletter topic from the start (or from the first
 * record at {@code from}) up to its end as it was when the replay began, keeps the records that match the filter, and
 * produces each to the intake with its key, value and headers, minus the headers the bridge added
 * ({@code delay-error}, {@code delay-error-message}, {@code delay-origin}, {@code delay-attempt}, {@code
 * delay-due-at}). A replayed record is an ordinary intake record again: its {@code delay-ms} counts from the replay,
 * a {@code delay-until} in the past means now.
 *
 * <p>Runs on the thread that calls {@link #run()}; {@link #progress()} may be read from any thread while it runs.
 */
public final class DeadletterReplay implements Runnable {

    /** Which deadletter records to replay; null fields match everything. Times are record timestamps, epoch ms. */
    public record Filter(String errorCode, String target, Long from, Long to, int limit) {}

    /** What a replay has done so far. {@code state}: running, done, failed, cancelled. */
    public record Progress(
            String id,
            String state,
            Filter filter,
            long scanned,
            long matched,
            long sent,
            long acknowledged,
            long failed,
            long startedAt,
            Long finishedAt,
            String error) {}

    private final String id;
    private final Filter filter;
    private final Properties consumerProperties;
    private final Producer<byte[], byte[]> producer;
    private final String deadletterTopic;
    private final String intakeTopic;
    private final Clock clock;
    private final long startedAt;
    private final AtomicLong scanned = new AtomicLong();
    private final AtomicLong matched = new AtomicLong();
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong acknowledged = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicReference<String> firstError = new AtomicReference<>();
    private volatile String state = "running";
    private volatile Long finishedAt;
    private volatile boolean stopRequested;

    public DeadletterReplay(
            String id,
            Filter filter,
            Properties consumerProperties,
            Producer<byte[], byte[]> producer,
            String deadletterTopic,
            String intakeTopic,
            Clock clock) {
        this.id = id;
        this.filter = filter;
        this.consumerProperties = new Properties();
        this.consumerProperties.putAll(consumerProperties);
        this.consumerProperties.remove(ConsumerConfig.GROUP_ID_CONFIG); // assigned partitions, nothing committed
        this.consumerProperties.remove(
                ConsumerConfig.GROUP_INSTANCE_ID_CONFIG); // not a member: never fences the intake
        this.consumerProperties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        this.consumerProperties.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "1000");
        this.producer = producer;
        this.deadletterTopic = deadletterTopic;
        this.intakeTopic = intakeTopic;
        this.clock = clock;
        this.startedAt = clock.millis();
    }

    public String id() {
        return id;
    }

    public void stop() {
        stopRequested = true;
    }

    public boolean isRunning() {
        return "running".equals(state);
    }

    public Progress progress() {
        return new Progress(
                id,
                state,
                filter,
                scanned.get(),
                matched.get(),
                sent.get(),
                acknowledged.get(),
                failed.get(),
                startedAt,
                finishedAt,
                firstError.get());
    }

    @Override
    public void run() {
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(consumerProperties, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (PartitionInfo p : consumer.partitionsFor(deadletterTopic, Duration.ofSeconds(30))) {
                partitions.add(new TopicPartition(deadletterTopic, p.partition()));
            }
            consumer.assign(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofSeconds(30));
            seekToStart(consumer, partitions, end);
            Map<TopicPartition, Long> remaining = new HashMap<>(end);
            remaining.entrySet().removeIf(e -> consumer.position(e.getKey(), Duration.ofSeconds(30)) >= e.getValue());
            consumer.pause(
                    partitions.stream().filter(tp -> !remaining.containsKey(tp)).toList());
            while (!remaining.isEmpty() && !stopRequested && matched.get() < filter.limit()) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    TopicPartition tp = new TopicPartition(record.topic(), record.partition());
                    Long stopAt = remaining.get(tp);
                    if (stopAt == null || record.offset() >= stopAt) {
                        continue;
                    }
                    scanned.incrementAndGet();
                    if (matches(record) && matched.get() < filter.limit()) {
                        matched.incrementAndGet();
                        replay(record);
                    }
                }
                for (TopicPartition tp : List.copyOf(remaining.keySet())) {
                    if (consumer.position(tp) >= remaining.get(tp)) {
                        remaining.remove(tp);
                        consumer.pause(List.of(tp));
                    }
                }
            }
            producer.flush();
            state = stopRequested ? "cancelled" : (failed.get() > 0 ? "failed" : "done");
        } catch (RuntimeException e) {
            firstError.compareAndSet(null, e.toString());
            state = "failed";
        } finally {
            finishedAt = clock.millis();
        }
    }

    private void seekToStart(
            KafkaConsumer<byte[], byte[]> consumer, List<TopicPartition> partitions, Map<TopicPartition, Long> end) {
        if (filter.from() == null) {
            consumer.seekToBeginning(partitions);
            return;
        }
        Map<TopicPartition, Long> times = new HashMap<>();
        partitions.forEach(tp -> times.put(tp, filter.from()));
        Map<TopicPartition, OffsetAndTimestamp> offsets = consumer.offsetsForTimes(times, Duration.ofSeconds(30));
        for (TopicPartition tp : partitions) {
            OffsetAndTimestamp at = offsets.get(tp);
            consumer.seek(tp, at == null ? end.get(tp) : at.offset());
        }
    }

    private boolean matches(ConsumerRecord<byte[], byte[]> record) {
        if (filter.from() != null && record.timestamp() < filter.from()) {
            return false;
        }
        if (filter.to() != null && record.timestamp() > filter.to()) {
            return false;
        }
        if (filter.errorCode() != null && !filter.errorCode().equals(header(record, DelayHeaders.ERROR))) {
            return false;
        }
        return filter.target() == null || filter.target().equals(header(record, DelayHeaders.TARGET));
    }

    private void replay(ConsumerRecord<byte[], byte[]> record) {
        RecordHeaders headers = new RecordHeaders();
        for (Header h : record.headers()) {
            if (!isAddedByBridge(h.key())) {
                headers.add(h);
            }
        }
        try {
            producer.send(
                    new ProducerRecord<>(intakeTopic, null, null, record.key(), record.value(), headers),
                    (metadata, error) -> {
                        if (error == null) {
                            acknowledged.incrementAndGet();
                        } else {
                            failed.incrementAndGet();
                            firstError.compareAndSet(null, error.toString());
                        }
                    });
            sent.incrementAndGet();
        } catch (RuntimeException e) {
            failed.incrementAndGet();
            firstError.compareAndSet(null, e.toString());
        }
    }

    /** The headers a deadletter record carries beyond the original record's. */
    static boolean isAddedByBridge(String name) {
        return DelayHeaders.ERROR.equals(name)
                || DelayHeaders.ERROR_MESSAGE.equals(name)
                || DelayHeaders.isProvenance(name);
    }

    private static String header(ConsumerRecord<byte[], byte[]> record, String name) {
        Header h = record.headers().lastHeader(name);
        return h == null || h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }
}

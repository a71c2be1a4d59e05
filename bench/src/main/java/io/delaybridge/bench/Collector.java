package io.delaybridge.bench;

import io.delaybridge.schemas.DelayHeaders;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads the target topics from the beginning and files every record under its phase: lateness is the record's broker
 * timestamp (target topics use LogAppendTime) minus the due time the load generator wrote into the value. An occurrence
 * of a series ({@link Load#sendSeries}) counts from its {@code delay-due-at}, as sequence number the series' own plus
 * its {@code delay-occurrence} minus one.
 */
final class Collector implements AutoCloseable {

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Thread thread;
    private final Map<Integer, Stats> phases = new HashMap<>();
    /**
     * Records of phases not registered yet, kept until they are: a bridge started before {@code register} may deliver
     * at once, and dropping those records made a run wait for records it had already seen. Guarded by {@code phases}.
     */
    private final Map<Integer, List<long[]>> early = new HashMap<>();

    private volatile boolean running = true;

    Collector(String bootstrap, Collection<String> topics) {
        this(bootstrap, topics, false);
    }

    /** {@code readCommitted}: as a {@code read_committed} consumer (what an exactly-once bridge promises). */
    Collector(String bootstrap, Collection<String> topics, boolean readCommitted) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
        props.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "50");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, readCommitted ? "read_committed" : "read_uncommitted");
        consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        List<TopicPartition> partitions = new ArrayList<>();
        for (String topic : topics) {
            for (PartitionInfo info : consumer.partitionsFor(topic)) {
                partitions.add(new TopicPartition(topic, info.partition()));
            }
        }
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        thread = new Thread(this::run, "bench-collector");
        thread.setDaemon(true);
        thread.start();
    }

    void register(int phase, Stats stats) {
        synchronized (phases) {
            phases.put(phase, stats);
            for (long[] r : early.getOrDefault(phase, List.of())) {
                stats.record(r[0], r[1], r[2], r[3]);
            }
            early.remove(phase);
        }
    }

    private void run() {
        try {
            while (running) {
                ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(100));
                long readAt = System.currentTimeMillis(); // the same host's clock as the load's due times
                for (ConsumerRecord<byte[], byte[]> record : records) {
                    ByteBuffer value = ByteBuffer.wrap(record.value());
                    long dueAt = value.getLong(0);
                    long seq = value.getLong(8);
                    int phase = Load.phaseOf(value);
                    Header occurrence = record.headers().lastHeader(DelayHeaders.OCCURRENCE);
                    if (occurrence != null) { // a series' occurrence n: its own due time and sequence number
                        seq += Long.parseLong(text(occurrence)) - 1;
                        dueAt = Long.parseLong(text(record.headers().lastHeader(DelayHeaders.DUE_AT)));
                    }
                    synchronized (phases) {
                        Stats stats = phases.get(phase);
                        if (stats == null) {
                            early.computeIfAbsent(phase, p -> new ArrayList<>())
                                    .add(new long[] {seq, dueAt, record.timestamp(), readAt});
                        } else {
                            stats.record(seq, dueAt, record.timestamp(), readAt);
                        }
                    }
                }
            }
        } catch (WakeupException e) {
            // closing
        }
    }

    private static String text(Header header) {
        return new String(header.value(), StandardCharsets.UTF_8);
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        consumer.wakeup();
        thread.join(5_000);
        consumer.close(Duration.ofSeconds(2));
    }
}

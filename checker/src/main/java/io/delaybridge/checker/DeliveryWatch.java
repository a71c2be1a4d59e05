package io.delaybridge.checker;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads every partition of the target topics and the deadletter topic from the beginning, without a group, and
 * records each arrival in the ledger. Timestamps are the broker's (the campaign creates these topics with
 * LogAppendTime), so a bridge with a shifted clock cannot make an early delivery look on time.
 */
final class DeliveryWatch implements Runnable {

    private final String bootstrap;
    private final List<String> targets;
    private final String deadletterTopic;
    private final DeliveryLedger ledger;
    private volatile boolean running = true;
    private volatile List<TopicPartition> assigned = List.of();
    private final Map<TopicPartition, Long> positions = new ConcurrentHashMap<>();
    final AtomicLong arrivals = new AtomicLong();
    final Repeats repeats;

    /**
     * Every record that arrived more than once (up to 10,000 of them), each copy with its broker timestamp, its
     * delay-attempt and where it lies ({@code topic-partition@offset}): enough to find the batches and transactions that
     * wrote them in the brokers' logs. The first copy's place is kept for every record, packed, as most never repeat.
     */
    static final class Repeats {
        private final Map<Integer, List<String>> copies = new java.util.HashMap<>();
        private final long[] firstTimestamp;
        private final long[] firstPlace;
        private final List<String> topics;
        private int worst = -1;

        Repeats(int records, List<String> topics) {
            this.firstTimestamp = new long[records];
            this.firstPlace = new long[records];
            this.topics = List.copyOf(topics);
        }

        /**
         * @param n       the record's number
         * @param count   how many copies of it arrived, this one included
         * @param record  this copy; its topic is one of those given at construction
         * @param attempt its delay-attempt header
         */
        synchronized void note(int n, int count, ConsumerRecord<?, ?> record, String attempt) {
            String topic = record.topic();
            int partition = record.partition();
            long offset = record.offset();
            long ts = record.timestamp();
            if (n < 0 || n >= firstPlace.length) {
                return;
            }
            if (count < 2) {
                firstTimestamp[n] = ts;
                firstPlace[n] = ((long) topics.indexOf(topic) << 56) | ((long) partition << 40) | offset;
                return;
            }
            List<String> list = copies.get(n);
            if (list == null) {
                if (copies.size() >= 10_000) {
                    return;
                }
                long place = firstPlace[n];
                list = new ArrayList<>(List.of(firstTimestamp[n] + " at " + topics.get((int) (place >>> 56)) + "-"
                        + ((place >>> 40) & 0xFFFF) + "@" + (place & 0xFF_FFFF_FFFFL) + " (first copy)"));
                copies.put(n, list);
            }
            list.add(ts + " attempt " + attempt + " at " + topic + "-" + partition + "@" + offset);
            if (worst < 0 || list.size() > copies.get(worst).size()) {
                worst = n;
            }
        }

        synchronized String worst() {
            return worst < 0
                    ? "none"
                    : "record " + worst + " arrived " + copies.get(worst).size() + " times: " + copies.get(worst);
        }

        /** Writes every repeated record's copies to {@code file}, one record a line, by record number. */
        synchronized void write(java.nio.file.Path file) throws java.io.IOException {
            List<String> lines = new ArrayList<>();
            new java.util.TreeMap<>(copies)
                    .forEach((n, list) -> lines.add("record " + n + ": " + String.join(" | ", list)));
            java.nio.file.Files.write(file, lines);
        }
    }

    /** {@code read_committed} when the bridges deliver exactly once: what aborted transactions held is not seen. */
    private final String isolation;

    DeliveryWatch(
            String bootstrap,
            List<String> targets,
            String deadletterTopic,
            DeliveryLedger ledger,
            boolean readCommitted) {
        this.isolation = readCommitted ? "read_committed" : "read_uncommitted";
        this.bootstrap = bootstrap;
        this.targets = targets;
        this.deadletterTopic = deadletterTopic;
        this.ledger = ledger;
        this.repeats = new Repeats(ledger.records(), topics());
    }

    /** The topics it reads: the targets, then the deadletter topic. */
    private List<String> topics() {
        List<String> topics = new ArrayList<>(targets);
        topics.add(deadletterTopic);
        return topics;
    }

    void stop() {
        running = false;
    }

    @Override
    public void run() {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (String topic : topics()) {
                consumer.partitionsFor(topic, Duration.ofSeconds(60))
                        .forEach(info -> partitions.add(new TopicPartition(topic, info.partition())));
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            assigned = List.copyOf(partitions);
            while (running) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    boolean deadletter = record.topic().equals(deadletterTopic);
                    int n = IntakeLoad.number(record.value());
                    ledger.arrived(n, record.timestamp(), header(record, "delay-id"), deadletter);
                    repeats.note(n, ledger.copies(n), record, header(record, "delay-attempt"));
                    arrivals.incrementAndGet();
                }
                // the consumer's position, not the last record's offset + 1: with transactions a commit marker
                // follows the last record, and the end offset lies past it
                for (TopicPartition partition : partitions) {
                    positions.put(partition, consumer.position(partition));
                }
            }
        }
    }

    /** Whether this watch has read every topic up to its end offset as of now (call after the bridges stopped). */
    boolean caughtUp() {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
        try (KafkaConsumer<byte[], byte[]> probe =
                new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            Map<TopicPartition, Long> ends = probe.endOffsets(assigned, Duration.ofSeconds(30));
            return ends.entrySet().stream()
                    .allMatch(e -> e.getValue() == 0 || positions.getOrDefault(e.getKey(), 0L) >= e.getValue());
        }
    }

    private static String header(ConsumerRecord<byte[], byte[]> record, String name) {
        Header h = record.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }
}

package io.delaybridge.bench;

import com.codahale.metrics.MetricRegistry;
import io.delaybridge.bridge.rules.IdTemplate;
import io.delaybridge.bridge.rules.Rule;
import io.delaybridge.bridge.rules.RuleDelay;
import io.delaybridge.bridge.rules.RuleMeters;
import io.delaybridge.bridge.rules.RuleRecords;
import io.delaybridge.bridge.rules.RuleTopology;
import io.delaybridge.bridge.rules.RulesRunner;
import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.schemas.IntakeParser;
import io.delaybridge.schemas.TargetPolicy;
import io.delaybridge.testkit.KafkaBroker;
import io.delaybridge.testkit.TempDirs;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.StreamsConfig;

/**
 * The delay rules' throughput: records/s through one rule (a fixed delay and an id template, exactly-once from the
 * source topic to the intake) beside the plain Kafka copy ({@link PlainCopy}) of the same records in the same run.
 *
 * <p>Both read the same preloaded source topic from its beginning; the copy writes each record to another topic, the
 * rule writes each as an intake record with control headers. A rate is the records between the first and the last
 * output record, over the time between them (start-up excluded), counted by a read_committed consumer of the output.
 *
 * <pre>
 * java -cp ... io.delaybridge.bench.RuleThroughput [records]     # its own broker unless KAFKA_BOOTSTRAP_SERVERS
 * ./bench.sh --scenario rules --rule-records 200000              # as a scenario of DelayBenchmark
 * </pre>
 */
final class RuleThroughput {

    private static final int PARTITIONS = 8;
    private static final int VALUE_BYTES = 200;

    private RuleThroughput() {}

    public static void main(String[] args) throws Exception {
        int records = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
        String bootstrap = System.getenv("KAFKA_BOOTSTRAP_SERVERS");
        Path work = Files.createTempDirectory("delay-rules-bench-");
        KafkaBroker broker = null;
        try {
            if (bootstrap == null || bootstrap.isBlank()) {
                broker = KafkaBroker.start(work.resolve("kafka"));
                bootstrap = broker.bootstrapServers();
            }
            measure(bootstrap, records, Long.toString(System.currentTimeMillis() % 1_000_000, 36), work)
                    .forEach((k, v) -> System.out.println("- " + k + ": " + v));
        } finally {
            if (broker != null) {
                broker.close();
            }
            TempDirs.deleteRecursively(work);
        }
    }

    /** Runs the plain copy, then the rule, over {@code records} records; returns the result lines. */
    static Map<String, String> measure(String bootstrap, int records, String runId, Path work) throws Exception {
        String source = "rsrc" + runId;
        String copied = "rcopy" + runId;
        String intake = "rintake" + runId;
        String deadletter = "rdead" + runId;
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            List<NewTopic> topics = new ArrayList<>();
            for (String t : List.of(source, copied, intake, deadletter)) {
                topics.add(new NewTopic(t, Optional.of(PARTITIONS), Optional.empty()));
            }
            admin.createTopics(topics).all().get(60, TimeUnit.SECONDS);
        }
        preload(bootstrap, source, copied, records);
        Map<String, String> out = new LinkedHashMap<>();

        double copyRate;
        try (OutputCount count = new OutputCount(bootstrap, copied);
                PlainCopy copy = new PlainCopy(bootstrap, source, "rcopy" + runId)) {
            copyRate = count.awaitRate(records, 600);
        }
        double ruleRate;
        Rule rule = Rule.schedule(
                "bench",
                List.of(source),
                null,
                "bench.target",
                new RuleDelay.Fixed(30 * 60_000L),
                null,
                IdTemplate.parse("bench:{key}"));
        IntakeParser verifier = new IntakeParser(new TargetPolicy(intake, deadletter, List.of()), Long.MAX_VALUE);
        Properties streams = new Properties();
        streams.put(StreamsConfig.APPLICATION_ID_CONFIG, "rbench" + runId);
        streams.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        streams.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        streams.put(StreamsConfig.STATE_DIR_CONFIG, work.resolve("streams").toString());
        RulesRunner runner = new RulesRunner(
                RuleTopology.build(
                        List.of(rule),
                        List.of(new RuleMeters(new MetricRegistry(), "bench")),
                        new RuleRecords(verifier),
                        intake,
                        deadletter,
                        true,
                        code -> {}),
                streams,
                Duration.ofSeconds(30));
        try (OutputCount count = new OutputCount(bootstrap, intake)) {
            runner.start();
            ruleRate = count.awaitRate(records, 600);
        } finally {
            runner.stop();
        }
        out.put(
                "rules: plain Kafka copy of the source (baseline)",
                String.format(
                        "%,.0f records/s (%,d records of" + " %d bytes, %d partitions)",
                        copyRate, records, VALUE_BYTES, PARTITIONS));
        out.put(
                "rules: one rule into the intake (exactly_once_v2, commit 100 ms, 1 stream thread)",
                String.format("%,.0f records/s", ruleRate));
        out.put("rules: rule / plain copy", String.format("%.2f", ruleRate / copyRate));
        return out;
    }

    private static void preload(String bootstrap, String source, String copyTarget, int records) {
        byte[] value = new byte[VALUE_BYTES];
        java.util.Arrays.fill(value, (byte) 'x');
        // the plain copy routes by delay-target; the rule drops the source's delay- headers
        RecordHeader target = new RecordHeader(DelayHeaders.TARGET, copyTarget.getBytes(StandardCharsets.UTF_8));
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(
                Load.producerProperties(bootstrap), new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int i = 0; i < records; i++) {
                producer.send(new ProducerRecord<>(
                        source, null, null, ("order-" + i).getBytes(StandardCharsets.UTF_8), value, List.of(target)));
            }
            producer.flush();
        }
    }

    /** Counts the committed records of a topic from its beginning, and when the first and the n-th arrived. */
    private static final class OutputCount implements AutoCloseable {
        private final KafkaConsumer<byte[], byte[]> consumer;
        private final Thread thread;
        private final AtomicLong count = new AtomicLong();
        private volatile long firstNanos;
        private volatile boolean running = true;

        OutputCount(String bootstrap, String topic) {
            Properties p = new Properties();
            p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
            p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
            p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            consumer = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
            List<TopicPartition> partitions = new ArrayList<>();
            for (int i = 0; i < PARTITIONS; i++) {
                partitions.add(new TopicPartition(topic, i));
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            thread = new Thread(this::run, "rules-bench-count");
            thread.setDaemon(true);
            thread.start();
        }

        private void run() {
            try {
                while (running) {
                    var polled = consumer.poll(Duration.ofMillis(50));
                    if (!polled.isEmpty() && firstNanos == 0) {
                        firstNanos = System.nanoTime();
                    }
                    for (ConsumerRecord<byte[], byte[]> ignored : polled) {
                        count.incrementAndGet();
                    }
                }
            } catch (org.apache.kafka.common.errors.WakeupException e) {
                // closing
            } finally {
                consumer.close();
            }
        }

        /** Waits for n records; returns (n - first poll) / time from the first poll to the n-th record. */
        double awaitRate(int n, int timeoutSeconds) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
            long firstCount = -1;
            while (count.get() < n) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(
                            "only " + count.get() + " of " + n + " records in " + timeoutSeconds + " s");
                }
                if (firstCount < 0 && firstNanos != 0) {
                    firstCount = count.get();
                }
                Thread.sleep(10);
            }
            double seconds = (System.nanoTime() - firstNanos) / 1e9;
            return (n - Math.max(firstCount, 0)) / seconds;
        }

        @Override
        public void close() throws InterruptedException {
            running = false;
            consumer.wakeup();
            thread.join(5_000);
        }
    }
}

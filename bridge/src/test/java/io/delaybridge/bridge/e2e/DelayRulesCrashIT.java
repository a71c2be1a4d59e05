package io.delaybridge.bridge.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.bridge.SharedJvm;
import io.delaybridge.bridge.rules.RuleRecords;
import io.delaybridge.testkit.ChildJvm;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.TestServers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Exactly once through crashes: 10,000 source records through one rule, whose process ({@code delay-bridge.jar
 * rules}, the fat jar, so also without RocksDB on the class path) is killed with SIGKILL twice while it works. Every
 * source record must be in the intake exactly once, counted by its {@code x-delay-source} header
 * ({@code topic/partition/offset}) with a read_committed consumer, and delivered to the target by the bridge.
 */
@ExtendWith(RealServersExtension.class)
@Execution(ExecutionMode.CONCURRENT) // its bridges run in this JVM beside other classes
@ResourceLock(value = SharedJvm.LOGGING_AND_THREADS, mode = ResourceAccessMode.READ)
class DelayRulesCrashIT {

    private static final int RECORDS = 10_000;

    @TempDir
    Path dir;

    @Test
    void everySourceRecordIsScheduledExactlyOnceThroughTwoKills(TestServers servers) throws Exception {
        TestNames names = TestNames.unique(servers);
        String source = names.target("src");
        String target = names.target("out");
        Path jar = Path.of("target", "delay-bridge.jar").toAbsolutePath();
        assertTrue(Files.isRegularFile(jar), jar + " is missing: the integration tests run after mvn package");
        try (KafkaClient kafka = new KafkaClient(servers.kafkaBootstrap());
                TestBridge bridge = new TestBridge(names, servers.kafkaBootstrap(), servers.redisUri()).start();
                Admin admin = admin(servers.kafkaBootstrap())) {
            kafka.createTopics(4, source, target);
            Path config = RulesConfig.write(
                    dir, names, servers.kafkaBootstrap(), servers.redisUri(), """
                    rules:
                      - name: copy
                        source: %s
                        target: %s
                        delay: 200ms
                    """.formatted(source, target));
            String applicationId = names.group() + "-rules";
            KafkaClient.Collector delivered = kafka.collect(target);
            try (IntakeCount intake = new IntakeCount(servers.kafkaBootstrap(), names.intake());
                    RulesJvm rules = new RulesJvm(jar, config, dir.resolve("rules.log"))) {
                rules.start();
                // the second half of the source is produced only after the second kill, so that both kills come
                // while the rules still have work, however fast the machine catches up after a restart
                CountDownLatch secondKillDone = new CountDownLatch(1);
                Thread producer = new Thread(
                        () -> {
                            for (int i = 0; i < RECORDS; i++) {
                                if (i == RECORDS / 2) {
                                    kafka.flush();
                                    awaitLatch(secondKillDone);
                                }
                                kafka.sendAsync(source, "k-" + i, "v-" + i);
                                if (i % 250 == 249) {
                                    kafka.flush();
                                    pause(100);
                                }
                            }
                            kafka.flush();
                        },
                        "source-producer");
                producer.start();

                await().atMost(Duration.ofSeconds(120)).until(() -> intake.total() >= 2_000);
                rules.kill();
                int atFirstKill = intake.total();
                rules.start();
                // the restarted instance has done some of the first half (all of it, if the first kill came late)
                await().atMost(Duration.ofSeconds(120))
                        .until(() -> intake.total() >= Math.min(atFirstKill + 1_000, RECORDS / 2));
                rules.kill();
                int atSecondKill = intake.total();
                secondKillDone.countDown();
                rules.start();
                producer.join(120_000);

                await().atMost(Duration.ofSeconds(180)).until(() -> intake.sources() == RECORDS);
                // the rules have committed every source offset: nothing more can come
                await().atMost(Duration.ofSeconds(60)).until(() -> lag(admin, applicationId, source) == 0);
                // and the count has read the intake to its end: a duplicate written last is counted too
                Map<TopicPartition, Long> ends = committedEnds(admin, intake.partitions());
                await().atMost(Duration.ofSeconds(60)).until(() -> intake.reached(ends));
                Map<String, Integer> counts = intake.counts();
                List<String> twice = counts.entrySet().stream()
                        .filter(e -> e.getValue() != 1)
                        .map(e -> e.getKey() + " x" + e.getValue())
                        .limit(10)
                        .toList();
                assertEquals(List.of(), twice, "source records in the intake more than once");
                assertEquals(RECORDS, counts.size());
                assertEquals(RECORDS, intake.total(), "intake records");

                await().atMost(Duration.ofSeconds(180))
                        .until(() -> delivered.received().stream()
                                        .map(r -> r.header(RuleRecords.SOURCE_HEADER))
                                        .distinct()
                                        .count()
                                == RECORDS);
                System.out.printf(
                        "delay rules through two SIGKILLs: kills at %d and %d intake records; %d source"
                                + " records, %d intake records, %d delivered%n",
                        atFirstKill, atSecondKill, RECORDS, intake.total(), delivered.size());
            }
        }
    }

    private static Admin admin(String bootstrap) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        return Admin.create(p);
    }

    /** The end of each partition as a read_committed consumer sees it: the last stable offset. */
    private static Map<TopicPartition, Long> committedEnds(Admin admin, List<TopicPartition> partitions)
            throws Exception {
        Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        partitions.forEach(p -> request.put(p, OffsetSpec.latest()));
        Map<TopicPartition, Long> ends = new HashMap<>();
        admin.listOffsets(request, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED))
                .all()
                .get(10, TimeUnit.SECONDS)
                .forEach((p, info) -> ends.put(p, info.offset()));
        return ends;
    }

    /** Records of {@code topic} after the offsets {@code group} committed; a partition never committed counts whole. */
    private static long lag(Admin admin, String group, String topic) throws Exception {
        var committed = admin.listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata()
                .get(10, TimeUnit.SECONDS);
        Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        for (int p = 0; p < 4; p++) {
            request.put(new TopicPartition(topic, p), OffsetSpec.latest());
        }
        long lag = 0;
        for (var e : admin.listOffsets(request).all().get(10, TimeUnit.SECONDS).entrySet()) {
            var c = committed.get(e.getKey());
            lag += e.getValue().offset() - (c == null ? 0 : c.offset());
        }
        return lag;
    }

    private static void awaitLatch(CountDownLatch latch) {
        try {
            if (!latch.await(120, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the second kill did not come within 120 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis); // pacing the producer, not waiting for a condition
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Reads the intake with read_committed and counts its records by {@code x-delay-source}. */
    private static final class IntakeCount implements AutoCloseable {
        private final Map<String, Integer> bySource = new ConcurrentHashMap<>();
        private final AtomicInteger total = new AtomicInteger();
        private final Map<TopicPartition, Long> positions = new ConcurrentHashMap<>();
        private final List<TopicPartition> partitions = new ArrayList<>();
        private final KafkaConsumer<byte[], byte[]> consumer;
        private final Thread thread;
        private volatile boolean running = true;

        IntakeCount(String bootstrap, String intake) {
            Properties p = new Properties();
            p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
            p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
            consumer = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
            consumer.partitionsFor(intake).forEach(i -> partitions.add(new TopicPartition(intake, i.partition())));
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            thread = new Thread(this::run, "intake-count");
            thread.setDaemon(true);
            thread.start();
        }

        private void run() {
            try {
                while (running) {
                    for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
                        Header h = r.headers().lastHeader(RuleRecords.SOURCE_HEADER);
                        String key = h == null ? "(none)" : new String(h.value(), StandardCharsets.UTF_8);
                        bySource.merge(key, 1, Integer::sum);
                        total.incrementAndGet();
                    }
                    for (TopicPartition p : partitions) {
                        positions.put(p, consumer.position(p)); // after the records above are counted
                    }
                }
            } catch (org.apache.kafka.common.errors.WakeupException e) {
                // closing
            } finally {
                consumer.close(Duration.ofSeconds(2));
            }
        }

        int total() {
            return total.get();
        }

        int sources() {
            return bySource.size();
        }

        List<TopicPartition> partitions() {
            return List.copyOf(partitions);
        }

        /** Whether every record before {@code ends} has been counted. */
        boolean reached(Map<TopicPartition, Long> ends) {
            return ends.entrySet().stream().allMatch(e -> positions.getOrDefault(e.getKey(), -1L) >= e.getValue());
        }

        Map<String, Integer> counts() {
            return Map.copyOf(bySource);
        }

        @Override
        public void close() throws InterruptedException {
            running = false;
            consumer.wakeup();
            thread.join(5_000);
        }
    }

    /** The rules part alone from the fat jar ({@code java -jar delay-bridge.jar rules config.yml}), restartable. */
    private static final class RulesJvm implements AutoCloseable {
        private final Path jar;
        private final Path config;
        private final Path log;
        private ChildJvm process;

        RulesJvm(Path jar, Path config, Path log) {
            this.jar = jar;
            this.config = config;
            this.log = log;
        }

        void start() {
            process = ChildJvm.jar("rules", jar)
                    .jvmOptions(List.of("-Xmx256m"))
                    .args("rules", config.toString())
                    .log(log)
                    .start();
        }

        void kill() {
            assertTrue(process.isAlive(), "the rules process died on its own, see " + log);
            process.kill(); // SIGKILL, returns once it is gone
        }

        @Override
        public void close() {
            if (process != null) {
                process.close();
            }
        }
    }
}

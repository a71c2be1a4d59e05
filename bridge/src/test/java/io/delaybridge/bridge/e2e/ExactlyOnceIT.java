package io.delaybridge.bridge.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.TestServers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * {@code delivery.exactlyOnce}: a {@code read_committed} consumer of the target sees every record exactly once, none
 * early, however the bridges die: killed with SIGKILL mid-delivery and restarted (three times), killed and not
 * restarted beside a survivor, or frozen past their lease (SIGSTOP) and woken as zombies; and across rebalances (a
 * bridge joining and leaving). A {@code read_uncommitted} consumer, read beside it, may see what aborted transactions
 * held; its extra copies are printed. Records due on arrival take the express path with it, their intake offsets
 * committed in the transactions that deliver them. Kafka's own faults: {@link ExactlyOnceKafkaFaultsIT}.
 */
@ExtendWith(RealServersExtension.class)
@Execution(ExecutionMode.CONCURRENT) // beside the other classes
class ExactlyOnceIT {

    private static final Map<String, String> EXACTLY_ONCE = Map.of("DELAY_EXACTLY_ONCE", "true");

    /** The bridges' configurations and logs, kept for a look after a failure. */
    private final Path dir = Path.of("target", "exactly-once-it", Long.toString(System.nanoTime()));

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void theOnlyBridgeKilledThreeTimesMidDeliveryDeliversEachRecordOnce(TestServers servers) throws Exception {
        int records = 5_000;
        TestNames names = TestNames.unique(servers);
        String target = names.target("out");
        try (KafkaClient kafka = new KafkaClient(servers.kafkaBootstrap())) {
            kafka.createTopics(2, target);
            KafkaClient.Collector committed = kafka.collectCommitted(target);
            KafkaClient.Collector uncommitted = kafka.collect(target);
            ChildBridge bridge = start(names, servers, "only");
            await().atMost(Duration.ofSeconds(30)).until(() -> bridge.shards().size() == 4);
            // a quarter of the records before each kill, due over the next 20 s, and the kill as soon as some of the
            // quarter arrived: records due after the kill cannot have been delivered (never early), so each kill
            // comes mid-delivery, whatever a restart on a busy machine costs
            Map<String, Long> dueAt = new HashMap<>();
            long alreadyDelivered = 0;
            for (int kill = 1; kill <= 3; kill++) {
                int before = dueAt.size();
                dueAt.putAll(RecoveryIT.sendSpread(kafka, names, target, "q" + kill + "-", records / 4, 1_000, 20_000));
                int reached = before + records / 16;
                await().atMost(Duration.ofSeconds(60)).until(() -> committed.size() >= reached);
                ChildBridge victim = current;
                alreadyDelivered += Math.max(0, victim.meter("delay.already-delivered"));
                victim.kill();
                assertTrue(RecoveryIT.keys(committed).size() < dueAt.size(), "kill " + kill + " came mid-delivery");
                current = start(names, servers, "only");
            }
            dueAt.putAll(RecoveryIT.sendSpread(kafka, names, target, "q4-", records / 4, 1_000, 20_000));
            try (ChildBridge last = current) {
                await().atMost(Duration.ofSeconds(90))
                        .until(() -> RecoveryIT.keys(committed).size() >= records);
                alreadyDelivered += Math.max(0, last.meter("delay.already-delivered"));
                Lateness lateness = ExactlyOnceChecks.exactlyOnce(dir, committed, dueAt);
                System.out.printf(
                        "[exactly-once] the only bridge killed 3 times mid-delivery: %d records, "
                                + "read_committed 0 duplicates, read_uncommitted %d extra copies, %d acked as already "
                                + "delivered after a restart, %s%n",
                        records, uncommitted.size() - records, alreadyDelivered, lateness);
            }
        }
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void twoBridgesOneKilledAndNotRestartedDeliverEachRecordOnce(TestServers servers) throws Exception {
        int records = 2_000;
        TestNames names = TestNames.unique(servers);
        String target = names.target("out");
        try (KafkaClient kafka = new KafkaClient(servers.kafkaBootstrap());
                ChildBridge survivor = start(names, servers, "survivor")) {
            kafka.createTopics(2, target);
            KafkaClient.Collector committed = kafka.collectCommitted(target);
            KafkaClient.Collector uncommitted = kafka.collect(target);
            ChildBridge victim = start(names, servers, "victim");
            await().atMost(Duration.ofSeconds(60))
                    .until(() ->
                            victim.shards().size() == 2 && survivor.shards().size() == 2);
            Map<String, Long> dueAt = RecoveryIT.sendSpread(kafka, names, target, records, 1_000, 11_000);

            await().atMost(Duration.ofSeconds(30)).until(() -> committed.size() >= records / 4);
            victim.kill();
            await().atMost(Duration.ofSeconds(90))
                    .until(() -> RecoveryIT.keys(committed).size() >= records);
            Lateness lateness = ExactlyOnceChecks.exactlyOnce(dir, committed, dueAt);
            assertEquals(4, survivor.shards().size(), "the survivor pumps every shard");
            // the send gauges read the transactional producers that deliver: the survivor delivered the victim's
            // shards just now, and the producers' averages hold what they sent for 30 s at least (two 30 s samples)
            await("the survivor's send gauges")
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> survivor.gauge("delay.send.batch-size-bytes-avg") > 0
                            && survivor.gauge("delay.send.records-per-request-avg") >= 1);
            System.out.printf(
                    "[exactly-once] one of two bridges killed, not restarted: %d records, read_committed "
                            + "0 duplicates, read_uncommitted %d extra copies, %d acked as already delivered, %s%n",
                    records, uncommitted.size() - records, survivor.meter("delay.already-delivered"), lateness);
        }
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void aZombieFrozenPastItsLeaseAndWokenDeliversNothingTwice(TestServers servers) throws Exception {
        int records = 2_000;
        TestNames names = TestNames.unique(servers);
        String target = names.target("out");
        try (KafkaClient kafka = new KafkaClient(servers.kafkaBootstrap());
                // a 1 s look-ahead keeps messages claimed and in open transactions at any moment
                ChildBridge survivor = start(names, servers, "survivor", "lease: 10s", "lookAhead: 1s");
                ChildBridge zombie = start(names, servers, "zombie", "lease: 10s", "lookAhead: 1s")) {
            kafka.createTopics(2, target);
            KafkaClient.Collector committed = kafka.collectCommitted(target);
            KafkaClient.Collector uncommitted = kafka.collect(target);
            await().atMost(Duration.ofSeconds(60))
                    .until(() ->
                            zombie.shards().size() == 2 && survivor.shards().size() == 2);
            List<Integer> zombieShards = zombie.shards();
            Map<String, Long> dueAt = RecoveryIT.sendSpread(kafka, names, target, records, 1_000, 16_000);

            await().atMost(Duration.ofSeconds(30)).until(() -> committed.size() >= records / 5);
            zombie.jvm().signal("STOP");
            long frozenAt = System.currentTimeMillis();
            int linesBeforeFreeze = Files.readAllLines(zombie.log()).size();
            // the freeze must catch work in flight, or nothing here tests what a woken zombie does with it
            long inFlightAtFreeze = RedisCounts.inFlight(servers.redisUri(), names, zombieShards);
            assertTrue(inFlightAtFreeze > 0, "the freeze caught messages in flight");
            await().atMost(Duration.ofSeconds(30)).until(() -> survivor.shards().size() == 4);
            // frozen past its lease (10 s), then woken: it sends what it held, its transactions are fenced
            await().atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> System.currentTimeMillis() - frozenAt > 11_000);
            zombie.jvm().signal("CONT");
            await().atMost(Duration.ofSeconds(90))
                    .until(() -> RecoveryIT.keys(committed).size() >= records);
            // the woken zombie tried what it held (fenced in Redis and in Kafka), rejoined the group and runs again
            // beside the survivor, each shard pumped by one of them: nothing of what it sent fenced may be visible
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> zombie.pipeline().path("healthy").asBoolean()
                            && zombie.shards().size() + survivor.shards().size() == 4);
            Lateness lateness = ExactlyOnceChecks.exactlyOnce(dir, committed, dueAt);
            // its transactions failed on waking; it must not open a shard again before it proves its epoch in Redis
            // (which fails): its first opening after the freeze comes only once it lost its partitions and rejoined
            List<String> afterFreeze = Files.readAllLines(zombie.log());
            afterFreeze = afterFreeze.subList(linesBeforeFreeze, afterFreeze.size());
            int lost = indexOf(afterFreeze, "Lost intake partitions");
            int opened = indexOf(afterFreeze, "open for transactions");
            assertTrue(
                    opened < 0 || (lost >= 0 && lost < opened),
                    "the woken zombie opened a shard before it rejoined the group: " + zombie.log());
            System.out.printf(
                    "[exactly-once] zombie (SIGSTOP %d ms, lease 10 s): %d in flight at the freeze, %d records, "
                            + "read_committed 0 duplicates, read_uncommitted %d extra copies, %s%n",
                    System.currentTimeMillis() - frozenAt,
                    inFlightAtFreeze,
                    records,
                    uncommitted.size() - records,
                    lateness);
        }
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void recordsDueOnArrivalTakeTheExpressPathAndSurviveKillsMidStream(TestServers servers) throws Exception {
        TestNames names = TestNames.unique(servers);
        String target = names.target("out");
        try (KafkaClient kafka = new KafkaClient(servers.kafkaBootstrap())) {
            kafka.createTopics(2, target);
            KafkaClient.Collector committed = kafka.collectCommitted(target);
            KafkaClient.Collector uncommitted = kafka.collect(target);
            ChildBridge bridge = start(names, servers, "only");
            await().atMost(Duration.ofSeconds(30)).until(() -> bridge.shards().size() == 4);
            Map<String, Long> dueAt = new ConcurrentHashMap<>();
            AtomicBoolean streaming = new AtomicBoolean(true);
            // a steady stream of records due at once (about 200 a second) while the bridge dies and returns
            Thread producer = new Thread(() -> stream(kafka, names, target, 0, streaming, dueAt), "due-at-once");
            producer.start();

            long express = 0;
            for (int kill = 1; kill <= 2; kill++) {
                ChildBridge victim = current;
                // the kill comes mid-stream, once this incarnation delivered a share by the express path
                await().atMost(Duration.ofSeconds(60)).until(() -> victim.meter("delay.intake.express") >= 300);
                long taken = victim.meter("delay.intake.express");
                victim.kill();
                express += taken;
                current = start(names, servers, "only");
            }
            try (ChildBridge last = current) {
                await().atMost(Duration.ofSeconds(60)).until(() -> last.meter("delay.intake.express") >= 300);
                streaming.set(false);
                producer.join(TimeUnit.SECONDS.toMillis(30));
                int records = dueAt.size();
                await().atMost(Duration.ofSeconds(90))
                        .until(() -> RecoveryIT.keys(committed).size() >= records);
                express += last.meter("delay.intake.express");
                Lateness lateness = ExactlyOnceChecks.exactlyOnce(dir, committed, dueAt);
                System.out.printf(
                        "[exactly-once] records due at once, the only bridge killed twice mid-stream: %d records, "
                                + "%d by the express path (meters read before each kill), read_committed 0 "
                                + "duplicates, read_uncommitted %d extra copies, %s%n",
                        records, express, uncommitted.size() - records, lateness);
            }
        }
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void rebalancesMidStreamMoveShardsWithoutRepeats(TestServers servers) throws Exception {
        TestNames names = TestNames.unique(servers);
        String target = names.target("out");
        try (KafkaClient kafka = new KafkaClient(servers.kafkaBootstrap());
                ChildBridge first = start(names, servers, "first")) {
            kafka.createTopics(2, target);
            KafkaClient.Collector committed = kafka.collectCommitted(target);
            KafkaClient.Collector uncommitted = kafka.collect(target);
            await().atMost(Duration.ofSeconds(30)).until(() -> first.shards().size() == 4);
            Map<String, Long> dueAt = new ConcurrentHashMap<>();
            AtomicBoolean streaming = new AtomicBoolean(true);
            // a steady stream of records due 2 s after they are sent (about 200 a second): whenever a rebalance
            // comes, records are pending, claimed and in open transactions
            Thread producer =
                    new Thread(() -> stream(kafka, names, target, 2_000, streaming, dueAt), "due-in-two-seconds");
            producer.start();
            await().atMost(Duration.ofSeconds(30)).until(() -> committed.size() >= 300);
            // a second bridge joins: half of the shards move to it, their transactions and delivered logs with them
            try (ChildBridge second = start(names, servers, "second")) {
                await().atMost(Duration.ofSeconds(60))
                        .until(() ->
                                second.shards().size() == 2 && first.shards().size() == 2);
                int joined = committed.size();
                await().atMost(Duration.ofSeconds(60)).until(() -> committed.size() >= joined + 300);
                second.jvm().terminate(Duration.ofSeconds(30)); // and leaves (SIGTERM): its shards move back
            }
            await().atMost(Duration.ofSeconds(60)).until(() -> first.shards().size() == 4);
            int left = committed.size();
            await().atMost(Duration.ofSeconds(60)).until(() -> committed.size() >= left + 300);
            streaming.set(false);
            producer.join(TimeUnit.SECONDS.toMillis(30));
            int records = dueAt.size();
            await().atMost(Duration.ofSeconds(90))
                    .until(() -> RecoveryIT.keys(committed).size() >= records);
            Lateness lateness = ExactlyOnceChecks.exactlyOnce(dir, committed, dueAt);
            System.out.printf(
                    "[exactly-once] a bridge joined and left mid-stream: %d records, read_committed 0 duplicates, "
                            + "read_uncommitted %d extra copies, %s%n",
                    records, uncommitted.size() - records, lateness);
        }
    }

    /**
     * A killed owner's transaction that was committing intake offsets stays open in the broker until its timeout, and
     * until it ends every read of the group's committed offsets for that partition waits. The next owner fences the
     * shard's earlier writers before it reads them, which aborts the dead transaction at once. The dead owner here: the
     * same instance's killed run, a producer with its transactional id whose transaction (intake offsets and a record
     * to the target, a timeout of two minutes) is left open; the restarted instance fences it as it opens its
     * producers.
     */
    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void theNextOwnerAbortsADeadOwnersOpenTransactionBeforeReadingTheIntakeOffsets(TestServers servers)
            throws Exception {
        TestNames names = TestNames.unique(servers);
        String target = names.target("out");
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, servers.kafkaBootstrap());
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, names.group() + "-" + names.intake() + "-next-a");
        props.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, "120000");
        try (KafkaClient kafka = new KafkaClient(servers.kafkaBootstrap());
                KafkaProducer<byte[], byte[]> dead =
                        new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            kafka.createTopics(4, names.intake());
            kafka.createTopics(2, target);
            KafkaClient.Collector committed = kafka.collectCommitted(target);
            dead.initTransactions();
            dead.beginTransaction();
            dead.sendOffsetsToTransaction(
                    Map.of(new TopicPartition(names.intake(), 0), new OffsetAndMetadata(0)),
                    new ConsumerGroupMetadata(names.group()));
            dead.send(new ProducerRecord<>(target, 0, "dead".getBytes(), "dead".getBytes()))
                    .get();

            try (ChildBridge bridge = start(names, servers, "next")) {
                await().atMost(Duration.ofSeconds(60))
                        .until(() -> bridge.shards().size() == 4);
                Map<String, Long> dueAt = RecoveryIT.sendSpread(kafka, names, target, 200, 500, 2_000);
                await().atMost(Duration.ofSeconds(60))
                        .until(() -> RecoveryIT.keys(committed).size() >= 200);
                ExactlyOnceChecks.exactlyOnce(dir, committed, dueAt);
                assertFalse(
                        committed.values().contains("dead"), "the dead owner's transaction was aborted, not committed");
                String log = Files.readString(bridge.log());
                assertFalse(
                        log.contains("Could not read the committed offsets"),
                        "the intake offsets were read without waiting for the dead transaction to time out: "
                                + bridge.log());
            } finally {
                dead.close(Duration.ZERO); // no abort on the way out: it was fenced
            }
        }
    }

    /**
     * Sends records due {@code delayMillis} after their intake timestamp, 20 every 100 ms, while {@code streaming};
     * their due times.
     */
    private static void stream(
            KafkaClient kafka,
            TestNames names,
            String target,
            long delayMillis,
            AtomicBoolean streaming,
            Map<String, Long> dueAt) {
        try {
            for (int i = 0; streaming.get(); i += 20) {
                Map<String, Future<RecordMetadata>> sends = new HashMap<>();
                for (int k = i; k < i + 20; k++) {
                    sends.put(
                            "k" + k,
                            kafka.sendAsync(
                                    names.intake(),
                                    "k" + k,
                                    "v" + k,
                                    DelayHeaders.TARGET,
                                    target,
                                    DelayHeaders.DELAY_MS,
                                    Long.toString(delayMillis)));
                }
                kafka.flush();
                for (Map.Entry<String, Future<RecordMetadata>> e : sends.entrySet()) {
                    dueAt.put(e.getKey(), e.getValue().get().timestamp() + delayMillis);
                }
                Thread.sleep(100); // the stream's pace, not a wait for a condition
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException(e);
        }
    }

    private ChildBridge current;

    private ChildBridge start(TestNames names, TestServers servers, String instanceId, String... pumpSettings) {
        ChildBridge bridge = ChildBridge.start(
                dir, names, servers.kafkaBootstrap(), servers.redisUri(), instanceId, EXACTLY_ONCE, pumpSettings);
        current = bridge;
        return bridge;
    }

    /** The index of the first of {@code lines} containing {@code text}, or -1. */
    private static int indexOf(List<String> lines, String text) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains(text)) {
                return i;
            }
        }
        return -1;
    }
}

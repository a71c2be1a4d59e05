package io.delaybridge.bridge.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.bridge.SharedJvm;
import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.TestServers;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * {@code intake.commitInterval}: the offsets of stored records not due soon wait for one commit of many polls; a poll
 * holding a record due soon, or a refused one, is committed at once, so that no record is delivered before its offset
 * is committed (a crash then re-reads only records still pending, stored once).
 */
@ExtendWith(RealServersExtension.class)
@Execution(ExecutionMode.CONCURRENT) // its bridges run in this JVM beside other classes
@ResourceLock(value = SharedJvm.LOGGING_AND_THREADS, mode = ResourceAccessMode.READ)
class IntakeCommitIT {

    private static final int ROUNDS = 10;
    private static final String LONG_INTERVAL = "5s";

    @Test
    void offsetsOfRecordsDueLaterWaitForTheIntervalAndAreCommittedTogether(TestServers servers) {
        storeInRounds(servers, "8s", (kafka, bridge, names) -> {
            assertTrue(
                    committedTotal(kafka, names) < ROUNDS,
                    "stored a moment ago, committed up to 8 s later: "
                            + kafka.committedOffsets(names.group(), names.intake()));
            await().atMost(Duration.ofSeconds(30)).until(() -> committedTotal(kafka, names) == ROUNDS);
            long batches = meter(bridge, "delay.intake.batches");
            long commits = meter(bridge, "delay.intake.commits");
            assertTrue(batches >= ROUNDS, "one stored batch a round at least: " + batches);
            assertTrue(commits >= 1 && commits <= 2, commits + " commits for " + batches + " stored batches");
        });
    }

    @Test
    void withoutAnIntervalEveryStoredBatchIsCommitted(TestServers servers) {
        storeInRounds(servers, "0ms", (kafka, bridge, names) -> {
            await().atMost(Duration.ofSeconds(10)).until(() -> committedTotal(kafka, names) == ROUNDS);
            assertEquals(meter(bridge, "delay.intake.batches"), meter(bridge, "delay.intake.commits"));
        });
    }

    @Test
    void recordsDueSoonAreCommittedBeforeTheyAreDelivered(TestServers servers) {
        TestNames names = TestNames.unique(servers);
        String target = names.target("out");
        try (KafkaClient kafka = new KafkaClient(servers.kafkaBootstrap());
                TestBridge bridge = bridge(servers, names, LONG_INTERVAL)) {
            kafka.createTopics(2, target);
            KafkaClient.Collector delivered = kafka.collect(target);
            Map<String, RecordMetadata> intake = new HashMap<>();
            int records = 30;
            for (int i = 0; i < records; i++) {
                // due from at once to 2.9 s: inside the 5 s interval, so each must be committed before it is due
                intake.put(
                        "k" + i,
                        kafka.send(
                                names.intake(),
                                "k" + i,
                                "v" + i,
                                null,
                                DelayHeaders.TARGET,
                                target,
                                DelayHeaders.DELAY_MS,
                                Long.toString(i * 100L)));
            }
            int checked = 0;
            while (checked < records) {
                int seen = checked;
                await().atMost(Duration.ofSeconds(30)).until(() -> delivered.size() > seen);
                Map<Integer, Long> committed = kafka.committedOffsets(names.group(), names.intake());
                for (KafkaClient.Received got : delivered.received().subList(checked, delivered.size())) {
                    RecordMetadata origin = intake.get(got.key());
                    long committedOffset = committed.getOrDefault(origin.partition(), -1L);
                    assertTrue(
                            committedOffset > origin.offset(),
                            got.key() + " (intake " + origin.partition() + "@" + origin.offset()
                                    + ") delivered while the committed offset was " + committedOffset);
                    checked++;
                }
            }
            assertEquals(records, delivered.size(), "every record delivered once");
        }
    }

    @Test
    void aRefusedRecordIsCommittedAtOnce(TestServers servers) {
        TestNames names = TestNames.unique(servers);
        try (KafkaClient kafka = new KafkaClient(servers.kafkaBootstrap());
                TestBridge bridge = bridge(servers, names, "10s")) {
            KafkaClient.Collector deadletters = kafka.collect(names.deadletter());
            RecordMetadata refused = kafka.send(names.intake(), "k0", "v0", null, DelayHeaders.DELAY_MS, "1h");
            await().atMost(Duration.ofSeconds(30)).until(() -> deadletters.size() == 1);
            // its deadletter copy was written before the commit (a re-read would write a second one): committed at
            // once, not at the end of the interval (10 s, the longest allowed; the bound leaves a busy broker time)
            await().atMost(Duration.ofSeconds(8))
                    .until(() -> kafka.committedOffsets(names.group(), names.intake())
                                    .getOrDefault(refused.partition(), -1L)
                            > refused.offset());
        }
    }

    private static TestBridge bridge(TestServers servers, TestNames names, String commitInterval) {
        return new TestBridge(
                        names,
                        servers.kafkaBootstrap(),
                        servers.redisUri(),
                        TestBridge.set("intake.commitInterval", commitInterval),
                        // the parked path's pacing: records delivered from the intake commit after their delivery
                        // instead
                        TestBridge.set("intake.expressWindow", "off"))
                .start();
    }

    /** What a test checks once {@link #storeInRounds} stored its records. */
    private interface AfterRounds {
        void check(KafkaClient kafka, TestBridge bridge, TestNames names);
    }

    /**
     * Starts a bridge with {@code commitInterval} and sends it one record due in an hour a round, each round once the
     * one before is stored (every round a poll of its own), then runs {@code check}.
     */
    private static void storeInRounds(TestServers servers, String commitInterval, AfterRounds check) {
        TestNames names = TestNames.unique(servers);
        String target = names.target("out");
        try (KafkaClient kafka = new KafkaClient(servers.kafkaBootstrap());
                TestBridge bridge = bridge(servers, names, commitInterval)) {
            kafka.createTopics(2, target);
            for (int i = 0; i < ROUNDS; i++) {
                kafka.send(
                        names.intake(),
                        "k" + i,
                        "v" + i,
                        null,
                        DelayHeaders.TARGET,
                        target,
                        DelayHeaders.DELAY_MS,
                        "1h");
                int stored = i + 1;
                await().atMost(Duration.ofSeconds(30)).until(() -> meter(bridge, "delay.scheduled") == stored);
            }
            check.check(kafka, bridge, names);
        }
    }

    private static long committedTotal(KafkaClient kafka, TestNames names) {
        return kafka.committedOffsets(names.group(), names.intake()).values().stream()
                .mapToLong(Long::longValue)
                .sum();
    }

    private static long meter(TestBridge bridge, String name) {
        return bridge.admin("/metrics").get("meters").get(name).get("count").asLong();
    }
}

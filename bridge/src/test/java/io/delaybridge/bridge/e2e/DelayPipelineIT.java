package io.delaybridge.bridge.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.TestServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The whole path on a real broker and Redis: intake, store, pump, delivery. */
@ExtendWith(RealServersExtension.class)
class DelayPipelineIT {

    private static final int RECORDS = 1_000;

    private record Sent(String target, String key, String value, long dueAt, String id, String origin) {}

    @Test
    void thousandRecordsWithRandomDelaysReachThreeTargetsOnTimeAndIntact(TestServers servers) throws Exception {
        TestNames names = TestNames.unique(servers);
        String[] targets = {names.target("orders"), names.target("reminders"), names.target("webhooks")};
        try (KafkaClient kafka = new KafkaClient(servers.kafkaBootstrap());
                TestBridge bridge = new TestBridge(names, servers.kafkaBootstrap(), servers.redisUri()).start()) {
            kafka.createTopics(3, targets);
            KafkaClient.Collector delivered = kafka.collect(targets);

            Random random = new Random(20261122);
            List<Future<RecordMetadata>> acks = new ArrayList<>();
            List<long[]> delays = new ArrayList<>();
            for (int i = 0; i < RECORDS; i++) {
                long delay = random.nextInt(5_001);
                String target = targets[i % targets.length];
                acks.add(kafka.sendAsync(
                        names.intake(),
                        "key-" + i,
                        "value-" + i,
                        DelayHeaders.TARGET,
                        target,
                        DelayHeaders.DELAY_MS,
                        Long.toString(delay),
                        "trace-id",
                        "trace-" + i));
                delays.add(new long[] {delay});
            }
            kafka.flush();
            Map<String, Sent> sent = new HashMap<>();
            for (int i = 0; i < RECORDS; i++) {
                RecordMetadata meta = acks.get(i).get();
                // the bridge creates the intake with LogAppendTime: the broker's timestamp is where the delay starts
                String id = names.intake() + "-" + meta.partition() + "-" + meta.offset();
                sent.put(
                        "key-" + i,
                        new Sent(
                                targets[i % targets.length],
                                "key-" + i,
                                "value-" + i,
                                meta.timestamp() + delays.get(i)[0],
                                id,
                                names.intake() + "/" + meta.partition() + "/" + meta.offset()));
            }

            await().atMost(Duration.ofSeconds(90)).until(() -> delivered.size() >= RECORDS);

            List<Long> lateness = new ArrayList<>();
            Map<String, Integer> seen = new HashMap<>();
            for (KafkaClient.Received got : delivered.received()) {
                Sent expected = sent.get(got.key());
                assertNotNull(expected, "unexpected record with key " + got.key());
                seen.merge(got.key(), 1, Integer::sum);
                assertEquals(expected.target(), got.topic(), "target of " + got.key());
                assertEquals(expected.value(), got.value(), "value of " + got.key());
                assertEquals("trace-" + got.key().substring(4), got.header("trace-id"), "user header kept");
                assertEquals(expected.id(), got.header(DelayHeaders.ID));
                assertEquals(Long.toString(expected.dueAt()), got.header(DelayHeaders.DUE_AT));
                assertEquals(expected.origin(), got.header(DelayHeaders.ORIGIN));
                assertEquals("1", got.header(DelayHeaders.ATTEMPT));
                assertTrue(
                        got.record().timestamp() >= expected.dueAt(),
                        () -> got.key() + " delivered "
                                + (expected.dueAt() - got.record().timestamp()) + " ms early");
                assertTrue(got.receivedAt() >= expected.dueAt(), () -> got.key() + " received early");
                assertTrue(got.record().headers().toArray().length == 5, "only trace-id and 4 provenance headers");
                lateness.add(got.record().timestamp() - expected.dueAt());
            }
            assertEquals(RECORDS, seen.size(), "every record delivered");
            assertTrue(seen.values().stream().allMatch(n -> n == 1), "no record delivered twice");
            Lateness figures = Lateness.of(lateness);
            // reported, not asserted: speed is measured by the benchmark (docs/benchmarks.md), not by tests
            System.out.println("[DelayPipelineIT] " + RECORDS + " records, delays 0-5 s, 3 targets: " + figures);

            assertEquals(
                    "LogAppendTime",
                    kafka.topicConfig(names.intake(), "message.timestamp.type"),
                    "the bridge creates the intake with broker timestamps");
            // the meters are marked on the threads that do the work, possibly after the last delivery: read with a wait
            bridge.awaitMetric("/meters/delay.scheduled/count", RECORDS);
            bridge.awaitMetric("/meters/delay.delivered/count", RECORDS);
            bridge.awaitMetric("/histograms/delay.lateness-ms/count", RECORDS);
            bridge.awaitMetric("/meters/delay.deadlettered.DELIVERY_FAILED/count", 0);
            bridge.awaitMetric("/gauges/delay.pending/value", 0);
            var health = bridge.admin("/healthcheck");
            for (String check : new String[] {"kafka", "redis", "pipeline"}) {
                assertTrue(health.at("/" + check + "/healthy").asBoolean(), check + " healthy: " + health);
            }
        }
    }
}

package io.delaybridge.bridge.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.TestServers;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Stopping the bridge in the middle of a run and starting it again loses nothing. */
@ExtendWith(RealServersExtension.class)
class RestartIT {

    private static final int RECORDS = 600;

    @Test
    void aBridgeStoppedAndStartedMidRunDeliversEveryRecord(TestServers servers) {
        TestNames names = TestNames.unique(servers);
        String target = names.target("out");
        try (KafkaClient kafka = new KafkaClient(servers.kafkaBootstrap())) {
            kafka.createTopics(2, target);
            KafkaClient.Collector delivered = kafka.collect(target);
            TestBridge bridge = new TestBridge(names, servers.kafkaBootstrap(), servers.redisUri()).start();
            Map<String, Long> dueAt = new HashMap<>();
            for (int i = 0; i < RECORDS / 2; i++) {
                send(kafka, names, target, i, dueAt);
            }
            // some of the first half is due and delivered, some still pending in Redis, when the bridge stops
            await().atMost(Duration.ofSeconds(30)).until(() -> delivered.size() >= 30);
            bridge.stop();
            int deliveredWhileDown = delivered.size();
            for (int i = RECORDS / 2; i < RECORDS; i++) {
                send(kafka, names, target, i, dueAt); // produced while the bridge is down
            }
            TestBridge restarted = new TestBridge(names, servers.kafkaBootstrap(), servers.redisUri()).start();
            try {
                await().atMost(Duration.ofSeconds(60))
                        .until(() -> keys(delivered).size() >= RECORDS);
            } finally {
                restarted.stop();
            }
            Set<String> expected =
                    IntStream.range(0, RECORDS).mapToObj(i -> "k" + i).collect(Collectors.toCollection(TreeSet::new));
            assertEquals(expected, keys(delivered), "every record delivered across the restart");
            assertTrue(deliveredWhileDown < RECORDS, "the restart happened mid-run");
            for (KafkaClient.Received got : delivered.received()) {
                assertTrue(got.record().timestamp() >= dueAt.get(got.key()), got.key() + " early");
            }
            assertEquals(RECORDS, delivered.size(), "a graceful stop delivers nothing twice");
        }
    }

    private static void send(KafkaClient kafka, TestNames names, String target, int i, Map<String, Long> dueAt) {
        long delay = (i % 30) * 100L;
        long ts = kafka.send(
                        names.intake(),
                        "k" + i,
                        "v" + i,
                        null,
                        DelayHeaders.TARGET,
                        target,
                        DelayHeaders.DELAY_MS,
                        Long.toString(delay))
                .timestamp();
        dueAt.put("k" + i, ts + delay);
    }

    private static Set<String> keys(KafkaClient.Collector collector) {
        return collector.received().stream()
                .map(KafkaClient.Received::key)
                .collect(Collectors.toCollection(TreeSet::new));
    }
}

package io.delaybridge.bridge.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.TestServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Records through the far tier end to end, as a user sees them: with {@code intake.hotWindow: 0ms} every record not
 * yet due waits in the intake's log with only an index entry in Redis, and the thaw stores it hot ahead of (or, with
 * this window, just at) its due time. Every record arrives once, never early, key, value and headers intact; a
 * replacement and a cancel that come while the record waits far win, for explicit and for default ids, from any
 * partition.
 */
@ExtendWith(RealServersExtension.class)
class FarTierDeliveryIT {

    @Test
    void farRecordsArriveOnceNeverEarlyAndReplacementsAndCancelsWin(TestServers servers) throws Exception {
        TestNames names = TestNames.unique(servers);
        String target = names.target("far");
        try (KafkaClient kafka = new KafkaClient(servers.kafkaBootstrap());
                TestBridge bridge = new TestBridge(
                                names,
                                servers.kafkaBootstrap(),
                                servers.redisUri(),
                                TestBridge.set("intake.hotWindow", "0ms"))
                        .start()) {
            kafka.createTopics(2, target);
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> bridge.admin("/healthcheck")
                            .get("far-tier")
                            .get("message")
                            .asText()
                            .startsWith("on: "));
            KafkaClient.Collector delivered = kafka.collect(target);

            // plain records with default ids, due over a few seconds
            Map<String, Long> due = new HashMap<>();
            for (int i = 0; i < 40; i++) {
                long at = System.currentTimeMillis() + 3_000 + 100L * i;
                send(kafka, names, "plain-" + i, target, at, "trace", "t-" + i);
                due.put("plain-" + i, at);
            }
            // an explicit id rescheduled earlier from another key (another partition, likely), and one cancelled
            long now = System.currentTimeMillis();
            send(kafka, names, "first-version", target, now + 9_000, DelayHeaders.ID, "order-1");
            send(kafka, names, "second-version", target, now + 4_000, DelayHeaders.ID, "order-1");
            due.put("second-version", now + 4_000);
            send(kafka, names, "cancelled-explicit", target, now + 5_000, DelayHeaders.ID, "order-2");
            kafka.send(names.intake(), "x", null, null, DelayHeaders.CANCEL, "order-2");
            // default ids: one cancelled by its id, one replaced by a record naming its id
            RecordMetadata cancelled = send(kafka, names, "cancelled-default", target, now + 6_000);
            kafka.send(names.intake(), "y", null, null, DelayHeaders.CANCEL, defaultId(names, cancelled));
            RecordMetadata replaced = send(kafka, names, "replaced-default", target, now + 8_000);
            send(kafka, names, "its-replacement", target, now + 3_500, DelayHeaders.ID, defaultId(names, replaced));
            due.put("its-replacement", now + 3_500);

            await().atMost(Duration.ofSeconds(60))
                    .until(() -> delivered.values().containsAll(due.keySet()));
            // the dropped versions were due by now + 9 s: wait past that and the thaw's cycle, then look
            long quietUntil = now + 9_000 + 3_000;
            await().atMost(Duration.ofSeconds(30)).until(() -> System.currentTimeMillis() > quietUntil);
            List<String> values = new ArrayList<>();
            delivered.received().forEach(r -> values.add(r.value()));
            assertEquals(due.size(), values.size(), "each record once, no dropped version: " + values);
            for (KafkaClient.Received r : delivered.received()) {
                long lateness = r.record().timestamp() - due.get(r.value());
                assertTrue(lateness >= 0, r.value() + " early by " + -lateness + " ms");
                assertEquals(String.valueOf(due.get(r.value())), r.header(DelayHeaders.DUE_AT));
            }
            KafkaClient.Received plain =
                    delivered.matching(r -> r.value().equals("plain-7")).get(0);
            assertEquals("t-7", plain.header("trace"), "user headers pass through the far tier");
            assertEquals("key-plain-7", plain.key());
            long far = bridge.admin("/metrics")
                    .get("meters")
                    .get("delay.intake.far")
                    .get("count")
                    .asLong();
            assertTrue(far >= 40, "records written far: " + far);
        }
    }

    private static RecordMetadata send(
            KafkaClient kafka, TestNames names, String value, String target, long dueAt, String... extra) {
        List<String> headers =
                new ArrayList<>(List.of(DelayHeaders.TARGET, target, DelayHeaders.UNTIL, Long.toString(dueAt)));
        headers.addAll(List.of(extra));
        return kafka.send(names.intake(), "key-" + value, value, null, headers.toArray(String[]::new));
    }

    private static String defaultId(TestNames names, RecordMetadata record) {
        return names.intake() + "-" + record.partition() + "-" + record.offset();
    }
}

package io.delaybridge.bridge.e2e;

import static io.delaybridge.bridge.e2e.KafkaClient.bytes;
import static io.delaybridge.bridge.e2e.KafkaClient.headers;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.bridge.SharedJvm;
import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.TestServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The express path: records already due (or due within {@code intake.expressWindow}) when the intake reads them are
 * delivered from the intake, never written to Redis, and their offsets are committed once they are delivered; what
 * the store knows of, or could be overtaken, parks as before.
 */
@ExtendWith(RealServersExtension.class)
@Execution(ExecutionMode.CONCURRENT) // its bridges run in this JVM beside other classes
@ResourceLock(value = SharedJvm.LOGGING_AND_THREADS, mode = ResourceAccessMode.READ)
class ExpressPathIT {

    private static final int PARTITIONS = 4;

    @Test
    void recordsAlreadyDueAreDeliveredWithoutTheStoreAndCommitted(TestServers servers) {
        try (Rig rig = new Rig(servers)) {
            Map<String, RecordMetadata> sent = new HashMap<>();
            int records = 40;
            for (int i = 0; i < records; i++) {
                sent.put(
                        "k" + i,
                        rig.kafka.send(
                                rig.names.intake(),
                                "k" + i,
                                "v" + i,
                                null,
                                DelayHeaders.TARGET,
                                rig.target,
                                DelayHeaders.DELAY_MS,
                                "0",
                                "trace-id",
                                "t" + i));
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> rig.delivered.size() >= records);
            for (KafkaClient.Received got : rig.delivered.received()) {
                RecordMetadata origin = sent.get(got.key());
                assertEquals("v" + got.key().substring(1), got.value());
                assertEquals("t" + got.key().substring(1), got.header("trace-id"), "user headers kept");
                assertEquals(
                        rig.names.intake() + "-" + origin.partition() + "-" + origin.offset(),
                        got.header(DelayHeaders.ID),
                        "the default id");
                assertEquals(
                        rig.names.intake() + "/" + origin.partition() + "/" + origin.offset(),
                        got.header(DelayHeaders.ORIGIN));
                assertEquals(Long.toString(origin.timestamp()), got.header(DelayHeaders.DUE_AT));
                assertEquals("1", got.header(DelayHeaders.ATTEMPT));
            }
            assertEquals(records, meter(rig.bridge, "delay.intake.express"), "all by the express path");
            assertEquals(0, meter(rig.bridge, "delay.intake.parked"), "nothing written to the store");
            assertEquals(0, meter(rig.bridge, "delay.scheduled"), "the store never held them");
            await().atMost(Duration.ofSeconds(10)).until(() -> committedCover(rig.kafka, rig.names, sent.values()));
            await().during(Duration.ofMillis(500))
                    .atMost(Duration.ofSeconds(3))
                    .until(() -> rig.delivered.size() == records);
        }
    }

    /** Not an assertion of speed (the machine is shared): prints the lateness of both paths for the same load. */
    @Test
    void latenessOfRecordsDueAtOnceOnBothPaths(TestServers servers) {
        for (String window : List.of("250ms", "off")) {
            try (Rig rig = new Rig(servers, TestBridge.set("intake.expressWindow", window))) {
                int records = 200;
                for (int i = 0; i < records; i++) {
                    rig.kafka.send(
                            rig.names.intake(),
                            "k" + i,
                            "v",
                            null,
                            DelayHeaders.TARGET,
                            rig.target,
                            DelayHeaders.DELAY_MS,
                            "0");
                }
                await().atMost(Duration.ofSeconds(30)).until(() -> rig.delivered.size() >= records);
                List<Long> inOrder = rig.delivered.received().stream()
                        .map(r -> r.record().timestamp() - Long.parseLong(r.header(DelayHeaders.DUE_AT)))
                        .toList();
                List<Long> late = inOrder.stream().sorted().toList();
                System.out.printf("[express] expressWindow %s: the first five %s%n", window, inOrder.subList(0, 5));
                System.out.printf(
                        "[express] expressWindow %s: %d records due at once, lateness p50 %d ms, "
                                + "p99 %d ms, max %d ms; express %d, parked %d%n",
                        window,
                        records,
                        late.get(records / 2),
                        late.get(records * 99 / 100),
                        late.get(records - 1),
                        meter(rig.bridge, "delay.intake.express"),
                        meter(rig.bridge, "delay.intake.parked"));
                assertEquals(window.equals("off") ? 0 : records, meter(rig.bridge, "delay.intake.express"));
            }
        }
    }

    @Test
    void aRecordDueWithinTheWindowIsNotDeliveredEarly(TestServers servers) {
        try (Rig rig = new Rig(servers, TestBridge.set("intake.expressWindow", "1s"))) {
            int records = 10;
            for (int i = 0; i < records; i++) {
                rig.kafka.send(
                        rig.names.intake(),
                        "soon-" + i,
                        "v",
                        null,
                        DelayHeaders.TARGET,
                        rig.target,
                        DelayHeaders.DELAY_MS,
                        Integer.toString(300 + 50 * i));
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> rig.delivered.size() >= records);
            for (KafkaClient.Received got : rig.delivered.received()) {
                long due = Long.parseLong(got.header(DelayHeaders.DUE_AT));
                assertTrue(
                        got.record().timestamp() >= due,
                        got.key() + " delivered " + (due - got.record().timestamp()) + " ms early");
            }
            assertEquals(records, meter(rig.bridge, "delay.intake.express"), "held until due, not parked");
        }
    }

    @Test
    void aCancelReadBeforeTheRecordWinsAndAKnownIdParks(TestServers servers) {
        TestNames names = TestNames.unique(servers);
        String target = names.target("out");
        try (KafkaClient kafka = new KafkaClient(servers.kafkaBootstrap())) {
            kafka.createIntakeWithCreateTime(names.intake(), PARTITIONS);
            kafka.createTopics(1, target);
            try (TestBridge bridge = bridge(servers, names)) {
                KafkaClient.Collector delivered = kafka.collect(target);
                long now = System.currentTimeMillis();
                // the record will be the first of partition 1: its default id is known before it is written
                String id = names.intake() + "-1-0";
                kafka.send(names.intake(), 0, null, null, now + 5_000, headers(DelayHeaders.CANCEL, id));
                await().atMost(Duration.ofSeconds(30)).until(() -> meter(bridge, "delay.cancel-not-found") == 1);
                kafka.send(
                        names.intake(),
                        1,
                        bytes("cancelled"),
                        bytes("never"),
                        now,
                        headers(DelayHeaders.TARGET, target, DelayHeaders.DELAY_MS, "0"));
                kafka.send(
                        names.intake(),
                        1,
                        bytes("marker"),
                        bytes("m"),
                        null,
                        headers(DelayHeaders.TARGET, target, DelayHeaders.DELAY_MS, "0"));
                await().atMost(Duration.ofSeconds(30)).until(() -> delivered.size() >= 1);
                await().during(Duration.ofMillis(500))
                        .atMost(Duration.ofSeconds(3))
                        .until(() -> delivered.size() == 1);
                assertEquals("marker", delivered.received().get(0).key(), "the cancelled record is not delivered");
                assertEquals(1, meter(bridge, "delay.cancelled-before-scheduled"), "parked, then dropped by store");
                assertTrue(meter(bridge, "delay.intake.express-fallback") >= 1, "the check parked it");
            }
        }
    }

    @Test
    void equalDueTimesOfAPartitionKeepTheirOrderWhenAnEarlierOneIsParked(TestServers servers) {
        try (Rig rig = new Rig(servers)) {
            long due = System.currentTimeMillis() + 2_000;
            // first: due in 2 s, beyond the window: parked in shard 0
            rig.kafka.send(
                    rig.names.intake(),
                    0,
                    bytes("first"),
                    bytes("1"),
                    null,
                    headers(DelayHeaders.TARGET, rig.target, DelayHeaders.UNTIL, Long.toString(due)));
            await().atMost(Duration.ofSeconds(30)).until(() -> meter(rig.bridge, "delay.scheduled") == 1);
            await().atMost(Duration.ofSeconds(5)).until(() -> System.currentTimeMillis() >= due - 150);
            // second: same partition, same due time, now within the window: the check sees the first and parks it
            rig.kafka.send(
                    rig.names.intake(),
                    0,
                    bytes("second"),
                    bytes("2"),
                    null,
                    headers(DelayHeaders.TARGET, rig.target, DelayHeaders.UNTIL, Long.toString(due)));
            await().atMost(Duration.ofSeconds(30)).until(() -> rig.delivered.size() >= 2);
            assertEquals(
                    List.of("first", "second"),
                    rig.delivered.received().stream()
                            .map(KafkaClient.Received::key)
                            .toList(),
                    "the second may not overtake the first");
            // The check parks the second while the first is stored or in flight. The pump claims the first up to
            // pump.lookAhead (100 ms) before its due time and the intake may read the second only after the first
            // was delivered and acknowledged: then the second rightly goes express, still after the first.
            long express = meter(rig.bridge, "delay.intake.express");
            assertTrue(express <= 1, "only the second can go express: " + express);
            assertEquals(
                    2 - express,
                    meter(rig.bridge, "delay.scheduled"),
                    "the first parked, and the second unless " + "it went express");
        }
    }

    @Test
    void aFailedFirstSendEndsWhereTheParkedPathPutsItAndCommitsAfter(TestServers servers) {
        try (Rig rig = new Rig(servers)) {
            KafkaClient.Collector deadletters = rig.kafka.collect(rig.names.deadletter());
            RecordMetadata bad = rig.kafka.send(
                    rig.names.intake(),
                    "no-such-partition",
                    "v",
                    null,
                    DelayHeaders.TARGET,
                    rig.target,
                    DelayHeaders.PARTITION,
                    "7",
                    DelayHeaders.DELAY_MS,
                    "0");
            await().atMost(Duration.ofSeconds(60)).until(() -> deadletters.size() >= 1);
            KafkaClient.Received dead = deadletters.received().get(0);
            assertEquals("no-such-partition", dead.key());
            assertEquals(rig.names.intake() + "-" + bad.partition() + "-" + bad.offset(), dead.header(DelayHeaders.ID));
            assertTrue(meter(rig.bridge, "delay.intake.express-fallback") >= 1, "parked after its first send failed");
            assertEquals(0, meter(rig.bridge, "delay.intake.express"));
            assertTrue(meter(rig.bridge, "delay.intake.parked") >= 1);
            await().atMost(Duration.ofSeconds(10)).until(() -> committedCover(rig.kafka, rig.names, List.of(bad)));
        }
    }

    @Test
    void aGracefulStopWithExpressRecordsInFlightDeliversNothingTwice(TestServers servers) {
        TestNames names = TestNames.unique(servers);
        String target = names.target("out");
        int records = 300;
        try (KafkaClient kafka = new KafkaClient(servers.kafkaBootstrap())) {
            List<RecordMetadata> sent = new ArrayList<>();
            KafkaClient.Collector delivered;
            TestBridge bridge = bridge(servers, names);
            try {
                kafka.createTopics(1, target);
                delivered = kafka.collect(target);
                for (int i = 0; i < records; i++) {
                    sent.add(kafka.send(
                            names.intake(),
                            "k" + i,
                            "v",
                            null,
                            DelayHeaders.TARGET,
                            target,
                            DelayHeaders.DELAY_MS,
                            Integer.toString(i % 200)));
                    if (i == records / 2) {
                        await().atMost(Duration.ofSeconds(30)).until(() -> delivered.size() >= 1);
                    }
                }
            } finally {
                bridge.stop(); // express records of the last polls are on their way
            }
            await().atMost(Duration.ofSeconds(5)).until(() -> delivered.size() > 0);
            Map<Integer, Long> committed = kafka.committedOffsets(names.group(), names.intake());
            for (KafkaClient.Received got : delivered.received()) {
                String[] id = got.header(DelayHeaders.ID).split("-");
                int partition = Integer.parseInt(id[id.length - 2]);
                long offset = Long.parseLong(id[id.length - 1]);
                assertTrue(
                        committed.getOrDefault(partition, -1L) > offset,
                        got.header(DelayHeaders.ID) + " delivered before the stop, but the committed offset is "
                                + committed);
            }
            int beforeRestart = delivered.size();
            System.out.printf("[express] graceful stop: %d of %d delivered before it%n", beforeRestart, records);
            try (TestBridge again = bridge(servers, names)) {
                await().atMost(Duration.ofSeconds(60)).until(() -> delivered.size() >= records);
                await().during(Duration.ofSeconds(1))
                        .atMost(Duration.ofSeconds(5))
                        .until(() -> delivered.size() == records);
                Map<String, Long> byId = delivered.received().stream()
                        .collect(Collectors.groupingBy(r -> r.header(DelayHeaders.ID), Collectors.counting()));
                assertEquals(records, byId.size(), "every record delivered");
                assertTrue(
                        byId.values().stream().allMatch(n -> n == 1),
                        "none twice: "
                                + byId.entrySet().stream()
                                        .filter(e -> e.getValue() > 1)
                                        .toList());
                await().atMost(Duration.ofSeconds(10)).until(() -> committedCover(kafka, names, sent));
            }
        }
    }

    @Test
    void aFullBufferParks(TestServers servers) {
        try (Rig rig = new Rig(
                servers,
                TestBridge.set("intake.expressBufferRecords", "1"),
                TestBridge.set("intake.expressWindow", "1s"))) {
            int records = 50;
            for (int i = 0; i < records; i++) {
                rig.kafka.sendAsync(
                        rig.names.intake(),
                        "k" + i,
                        "v",
                        DelayHeaders.TARGET,
                        rig.target,
                        DelayHeaders.DELAY_MS,
                        "500");
            }
            rig.kafka.flush();
            await().atMost(Duration.ofSeconds(30)).until(() -> rig.delivered.size() >= records);
            long express = meter(rig.bridge, "delay.intake.express");
            long parked = meter(rig.bridge, "delay.intake.parked");
            System.out.printf("[express] buffer of 1 record: %d express, %d parked%n", express, parked);
            assertTrue(parked > 0, "a full buffer parks");
            assertEquals(records, express + parked);
        }
    }

    /** What most tests stand on: the {@link DeliveryFixture}, a bridge on the shared Redis, then the target topic. */
    private static final class Rig implements AutoCloseable {
        final DeliveryFixture fixture;
        final TestNames names;
        final String target;
        final KafkaClient kafka;
        final TestBridge bridge;
        final KafkaClient.Collector delivered;

        Rig(TestServers servers, TestBridge.Setting... extra) {
            fixture = new DeliveryFixture(servers);
            names = fixture.names;
            target = fixture.target;
            kafka = fixture.kafka;
            TestBridge started;
            try {
                started = bridge(servers, names, extra);
            } catch (RuntimeException | Error e) {
                fixture.close();
                throw e;
            }
            bridge = started;
            try {
                delivered = fixture.collectTarget();
            } catch (RuntimeException | Error e) {
                close();
                throw e;
            }
        }

        @Override
        public void close() {
            try {
                bridge.close();
            } finally {
                fixture.close();
            }
        }
    }

    private static TestBridge bridge(TestServers servers, TestNames names, TestBridge.Setting... extra) {
        return new TestBridge(names, servers.kafkaBootstrap(), servers.redisUri(), extra).start();
    }

    private static boolean committedCover(KafkaClient kafka, TestNames names, Collection<RecordMetadata> sent) {
        Map<Integer, Long> committed = kafka.committedOffsets(names.group(), names.intake());
        return sent.stream().allMatch(r -> committed.getOrDefault(r.partition(), -1L) > r.offset());
    }

    private static long meter(TestBridge bridge, String name) {
        return bridge.admin("/metrics").get("meters").get(name).get("count").asLong();
    }
}

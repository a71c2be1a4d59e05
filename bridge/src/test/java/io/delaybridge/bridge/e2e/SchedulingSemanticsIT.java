package io.delaybridge.bridge.e2e;

import static io.delaybridge.bridge.e2e.KafkaClient.bytes;
import static io.delaybridge.bridge.e2e.KafkaClient.headers;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.TestServers;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Due times, cancels and reschedules. The intake topic is created with CreateTime here, so a test can date a record
 * in the past and check that the delay counts from the record's timestamp.
 */
@ExtendWith(RealServersExtension.class)
class SchedulingSemanticsIT {

    private static final int PARTITIONS = 4;
    private static TestNames names;
    private static KafkaClient kafka;
    private static TestBridge bridge;
    private static KafkaClient.Collector delivered;
    private static String target;

    @BeforeAll
    static void start(TestServers servers) {
        names = TestNames.unique(servers);
        target = names.target("out");
        kafka = new KafkaClient(servers.kafkaBootstrap());
        kafka.createIntakeWithCreateTime(names.intake(), PARTITIONS);
        kafka.createTopics(2, target);
        bridge = new TestBridge(names, servers.kafkaBootstrap(), servers.redisUri()).start();
        delivered = kafka.collect(target);
    }

    @AfterAll
    static void stop() {
        bridge.close();
        kafka.close();
    }

    @Test
    void delayCountsFromTheRecordTimestampNotFromWhenTheBridgeReadsIt() {
        // dated 60 s ago with a delay of 30 s: due 30 s ago. Counted from when the bridge reads it, it would be due
        // 30 s after it was sent, and a delivery is never early: arriving before that is the proof.
        long aMinuteAgo = System.currentTimeMillis() - 60_000;
        long sentAt = System.currentTimeMillis();
        kafka.send(
                names.intake(),
                "past-ts",
                "late",
                aMinuteAgo,
                DelayHeaders.TARGET,
                target,
                DelayHeaders.DELAY_MS,
                "30s");

        KafkaClient.Received got = awaitOne("past-ts");
        assertEquals(Long.toString(aMinuteAgo + 30_000), got.header(DelayHeaders.DUE_AT));
        assertTrue(
                got.receivedAt() < sentAt + 30_000,
                "a record due 30 s ago is delivered before it would be due counted from now: took "
                        + (got.receivedAt() - sentAt));
    }

    @Test
    void delayUntilInThePastIsDeliveredAtOnce() {
        long sentAt = System.currentTimeMillis();
        kafka.send(
                names.intake(),
                "until-past",
                "now",
                null,
                DelayHeaders.TARGET,
                target,
                DelayHeaders.UNTIL,
                Instant.ofEpochMilli(sentAt - 60_000).toString());

        KafkaClient.Received got = awaitOne("until-past");
        assertEquals(Long.toString(sentAt - 60_000), got.header(DelayHeaders.DUE_AT));
        // held for the minute it is overdue (a sign turned, or a delay taken from the instant), it would arrive a
        // minute after it was sent at the earliest: a delivery is never early
        assertTrue(got.receivedAt() < sentAt + 60_000, "took " + (got.receivedAt() - sentAt) + " ms");
    }

    @Test
    void delayUntilInTheFutureIsDeliveredAtThatInstantNotBefore() {
        long due = System.currentTimeMillis() + 1_500;
        kafka.send(
                names.intake(),
                "until-future",
                "then",
                null,
                DelayHeaders.TARGET,
                target,
                DelayHeaders.UNTIL,
                Long.toString(due));

        KafkaClient.Received got = awaitOne("until-future");
        assertTrue(
                got.record().timestamp() >= due,
                "delivered " + (due - got.record().timestamp()) + " ms early");
        assertTrue(got.receivedAt() >= due);
    }

    @Test
    void cancelFromAnotherPartitionStopsDelivery() {
        String id = "order-" + System.nanoTime();
        kafka.send(
                names.intake(),
                0,
                bytes("cancel-me"),
                bytes("never"),
                null,
                headers(DelayHeaders.TARGET, target, DelayHeaders.DELAY_MS, "1500", DelayHeaders.ID, id));
        kafka.send(names.intake(), PARTITIONS - 1, null, null, null, headers(DelayHeaders.CANCEL, id));
        kafka.send(
                names.intake(),
                "cancel-marker",
                "marker",
                null,
                DelayHeaders.TARGET,
                target,
                DelayHeaders.DELAY_MS,
                "2500");

        awaitOne("cancel-marker");
        assertEquals(
                List.of(),
                delivered.matching(r -> "cancel-me".equals(r.key())),
                "a cancelled message is not delivered");
    }

    @Test
    void aCancelReadBeforeTheOlderScheduleItCancelsStillWins() {
        // the schedule was produced first but sits on a partition the bridge reads later (it lagged, or the bridge
        // was down): its cancel, produced after it on another partition, is read first
        String id = "lagging-" + System.nanoTime();
        long scheduledAt = System.currentTimeMillis() - 2_000;
        long cancelledBefore = bridge.admin("/metrics")
                .at("/meters/delay.cancel-not-found/count")
                .asLong();
        kafka.send(names.intake(), 3, null, null, scheduledAt + 1_000, headers(DelayHeaders.CANCEL, id));
        await().atMost(Duration.ofSeconds(30))
                .until(() -> bridge.admin("/metrics")
                                .at("/meters/delay.cancel-not-found/count")
                                .asLong()
                        > cancelledBefore);

        kafka.send(
                names.intake(),
                0,
                bytes("lagging"),
                bytes("must not fire"),
                scheduledAt,
                headers(DelayHeaders.TARGET, target, DelayHeaders.DELAY_MS, "1s", DelayHeaders.ID, id));
        kafka.send(
                names.intake(),
                "lagging-marker",
                "marker",
                null,
                DelayHeaders.TARGET,
                target,
                DelayHeaders.DELAY_MS,
                "500ms");

        awaitOne("lagging-marker");
        assertEquals(
                List.of(),
                delivered.matching(r -> "lagging".equals(r.key())),
                "a schedule older than a cancel already read is dropped, not delivered");
        await().atMost(TestBridge.METRIC_WAIT)
                .until(() -> bridge.admin("/metrics")
                                .at("/meters/delay.cancelled-before-scheduled/count")
                                .asLong()
                        >= 1);
    }

    @Test
    void aSecondRecordWithTheSameIdReschedulesItAndOnlyTheSecondIsDelivered() {
        String id = "reschedule-" + System.nanoTime();
        long sentAt = System.currentTimeMillis();
        kafka.send(
                names.intake(),
                1,
                bytes("resched"),
                bytes("first"),
                null,
                headers(DelayHeaders.TARGET, target, DelayHeaders.DELAY_MS, "1s", DelayHeaders.ID, id));
        RecordMetadata second = kafka.send(
                names.intake(),
                2,
                bytes("resched"),
                bytes("second"),
                null,
                headers(DelayHeaders.TARGET, target, DelayHeaders.DELAY_MS, "2s", DelayHeaders.ID, id));
        kafka.send(
                names.intake(),
                "resched-marker",
                "marker",
                null,
                DelayHeaders.TARGET,
                target,
                DelayHeaders.DELAY_MS,
                "3s");

        awaitOne("resched-marker");
        List<KafkaClient.Received> got = delivered.matching(r -> "resched".equals(r.key()));
        assertEquals(1, got.size(), "exactly one delivery of a rescheduled id");
        assertEquals("second", got.get(0).value());
        assertEquals(id, got.get(0).header(DelayHeaders.ID));
        assertEquals(Long.toString(second.timestamp() + 2_000), got.get(0).header(DelayHeaders.DUE_AT));
        assertTrue(got.get(0).receivedAt() >= sentAt + 2_000);
    }

    @Test
    void anOlderVersionReadAfterItsRescheduleIsNotDelivered() {
        // the reschedule was produced last but sits on a partition the bridge read first; the version it replaces,
        // produced before it, on a lagging partition (or read again after a crash), is due at once if it is stored
        String id = "superseded-" + System.nanoTime();
        long producedAt = System.currentTimeMillis();
        long supersededBefore =
                bridge.admin("/metrics").at("/meters/delay.superseded/count").asLong();
        RecordMetadata newer = kafka.send(
                names.intake(),
                3,
                bytes("superseding"),
                bytes("newer"),
                producedAt,
                headers(DelayHeaders.TARGET, target, DelayHeaders.DELAY_MS, "5s", DelayHeaders.ID, id));
        // stored: the intake commits a record's offset only once it is stored (a meter read here could still count
        // an earlier test's record, marked on the intake thread after that one was delivered)
        await().atMost(Duration.ofSeconds(30))
                .until(() ->
                        kafka.committedOffsets(names.group(), names.intake()).getOrDefault(3, 0L) > newer.offset());

        kafka.send(
                names.intake(),
                0,
                bytes("superseded"),
                bytes("older"),
                producedAt - 1_000,
                headers(DelayHeaders.TARGET, target, DelayHeaders.DELAY_MS, "1s", DelayHeaders.ID, id));
        awaitOne("superseding");
        kafka.send(
                names.intake(),
                "superseded-marker",
                "marker",
                null,
                DelayHeaders.TARGET,
                target,
                DelayHeaders.DELAY_MS,
                "500ms");

        awaitOne("superseded-marker");
        assertEquals(
                List.of(),
                delivered.matching(r -> "superseded".equals(r.key())),
                "a version older than the one stored is dropped, not delivered");
        assertEquals(1, delivered.matching(r -> "superseding".equals(r.key())).size());
        await().atMost(TestBridge.METRIC_WAIT)
                .until(() -> bridge.admin("/metrics")
                                .at("/meters/delay.superseded/count")
                                .asLong()
                        > supersededBefore);
    }

    @Test
    void aNullValueIsDeliveredAsATombstoneWithItsKey() {
        kafka.send(
                names.intake(), "tombstone", null, null, DelayHeaders.TARGET, target, DelayHeaders.DELAY_MS, "100ms");

        KafkaClient.Received got = awaitOne("tombstone");
        assertEquals(null, got.record().value());
    }

    @Test
    void delayPartitionIsHonoured() {
        kafka.send(
                names.intake(),
                "pinned",
                "to-1",
                null,
                DelayHeaders.TARGET,
                target,
                DelayHeaders.DELAY_MS,
                "0",
                DelayHeaders.PARTITION,
                "1");

        assertEquals(1, awaitOne("pinned").record().partition());
    }

    private static KafkaClient.Received awaitOne(String key) {
        await().atMost(Duration.ofSeconds(30))
                .until(() -> !delivered.matching(r -> key.equals(r.key())).isEmpty());
        List<KafkaClient.Received> got = delivered.matching(r -> key.equals(r.key()));
        assertEquals(1, got.size(), "one delivery of " + key);
        return got.get(0);
    }
}

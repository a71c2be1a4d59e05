package io.delaybridge.bridge.intake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.bridge.log.RecordTranslator;
import io.delaybridge.bridge.store.WriteOp;
import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.schemas.EnvelopeCodec;
import io.delaybridge.schemas.IntakeOrigin;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

class IntakePollTest {

    private static final String INTAKE = "delay-intake";
    private static final long NOW = 1_700_000_000_000L;
    private static final RecordTranslator TRANSLATOR = new IntakeSettings(
                    new RecordRules(
                            INTAKE,
                            "delay-deadletter",
                            Duration.ofDays(365).toMillis(),
                            1_048_576,
                            List.of(),
                            Duration.ofHours(1).toMillis()),
                    new IntakePacing(
                            Duration.ofMillis(100),
                            Duration.ofMillis(100),
                            Duration.ofMillis(100),
                            Duration.ofSeconds(10)))
            .translator();

    @Test
    void aPollBecomesItsOperationsRefusalsAndTheOffsetsItCommits() {
        List<ConsumerRecord<byte[], byte[]>> records = List.of(
                record(0, 10, until(NOW + 5_000)),
                record(1, 7, until(NOW + 2_000)),
                record(0, 11, null), // no delay-target: refused
                record(0, 12, cancel("order-1")));

        IntakePoll poll = IntakePoll.translate(records, TRANSLATOR, "marker", null, Long.MAX_VALUE, FarPolicy.NONE);

        assertEquals(4, poll.count());
        assertEquals(3, poll.ops().size());
        assertInstanceOf(WriteOp.Schedule.class, poll.ops().get(0));
        assertInstanceOf(WriteOp.Cancel.class, poll.ops().get(2));
        assertTrue(poll.refused());
        assertEquals(11, poll.rejected().get(0).offset());
        assertEquals(1, poll.reasons().size());
        assertEquals(NOW + 2_000, poll.earliestDueAt());
        TopicPartition p0 = new TopicPartition(INTAKE, 0);
        TopicPartition p1 = new TopicPartition(INTAKE, 1);
        assertEquals(new OffsetAndMetadata(13, "marker"), poll.commit().get(p0));
        assertEquals(new OffsetAndMetadata(8, "marker"), poll.commit().get(p1));
        assertEquals(10L, poll.first().get(p0));
        assertEquals(7L, poll.first().get(p1));
    }

    @Test
    void aPollOfCancelsOnlyHasNoDueTime() {
        IntakePoll poll = IntakePoll.translate(
                List.of(record(0, 1, cancel("a"))), TRANSLATOR, "m", null, Long.MAX_VALUE, FarPolicy.NONE);
        assertEquals(Long.MAX_VALUE, poll.earliestDueAt());
        assertFalse(poll.refused());
    }

    @Test
    void recordsDueWithinTheWindowGoExpressUnlessTheirIdIsNamedInThePoll() {
        ExpressGate gate = new ExpressGate(250, 100, 1_000_000);
        List<ConsumerRecord<byte[], byte[]>> records = List.of(
                record(0, 1, until(NOW)),
                record(0, 2, until(NOW + 10_000)), // beyond the window: parks, and so does the rest of partition 0
                record(0, 3, until(NOW)),
                record(1, 5, until(NOW + 100)),
                record(2, 7, until(NOW)), // cancelled later in the poll, from another partition: parks
                record(3, 1, cancel(INTAKE + "-2-7")));

        IntakePoll poll = IntakePoll.translate(records, TRANSLATOR, "m", gate, NOW, FarPolicy.NONE);

        assertEquals(
                List.of(INTAKE + "-0-1", INTAKE + "-1-5"),
                poll.express().stream().map(IntakePoll.ExpressRecord::id).toList());
        assertEquals(
                List.of(0, 1),
                poll.express().stream().map(IntakePoll.ExpressRecord::partition).toList());
        assertEquals(
                List.of(1L, 5L),
                poll.express().stream().map(IntakePoll.ExpressRecord::offset).toList(),
                "each carries its intake offset: its settle commits past it");
        assertEquals(4, poll.ops().size(), "the rest parks, the cancel included");
        assertEquals(2, gate.heldRecords());
        assertEquals(NOW, poll.earliestDueAt());
    }

    @Test
    void aCancelDoesNotStopTheExpressPathOfItsPartition() {
        ExpressGate gate = new ExpressGate(250, 100, 1_000_000);
        IntakePoll poll = IntakePoll.translate(
                List.of(record(0, 1, cancel("order-1")), record(0, 2, until(NOW))),
                TRANSLATOR,
                "m",
                gate,
                NOW,
                FarPolicy.NONE);
        assertEquals(
                List.of(INTAKE + "-0-2"),
                poll.express().stream().map(IntakePoll.ExpressRecord::id).toList());
        assertInstanceOf(WriteOp.Cancel.class, poll.ops().get(0), "the cancel is written, before the checks");
        assertEquals(1, poll.ops().size());
    }

    @Test
    void anExpressRecordIsEncodedOnlyWhenItParks() {
        IntakePoll poll = IntakePoll.translate(
                List.of(record(0, 1, until(NOW))),
                TRANSLATOR,
                "m",
                new ExpressGate(250, 100, 1_000_000),
                NOW,
                FarPolicy.NONE);
        IntakePoll.ExpressRecord express = poll.express().get(0);
        WriteOp.Schedule parked = express.op();
        assertEquals(express.id(), parked.id());
        assertEquals(NOW, parked.dueAt());
        assertEquals(express.envelope(), EnvelopeCodec.decode(parked.envelope()), "parks what it would deliver");
        assertEquals(new IntakeOrigin(INTAKE, 0, 1), parked.origin());
    }

    @Test
    void withoutAReadingOfRedisClockEverythingParks() {
        IntakePoll poll = IntakePoll.translate(
                List.of(record(0, 1, until(NOW))),
                TRANSLATOR,
                "m",
                new ExpressGate(250, 100, 1_000_000),
                Long.MAX_VALUE,
                FarPolicy.NONE);
        assertEquals(List.of(), poll.express());
        assertEquals(1, poll.ops().size());
    }

    @Test
    void aScheduleTheFarPolicySendsFarIsWrittenAsItsPositionWithoutItsEnvelope() {
        FarPolicy far = farPolicy(10 * 60_000);
        RecordHeaders explicit = until(NOW + 86_400_000);
        explicit.add(DelayHeaders.ID, utf8("order-1"));
        List<ConsumerRecord<byte[], byte[]>> records = List.of(
                record(0, 1, until(NOW + 86_400_000)),
                record(0, 2, until(NOW + 60_000)), // within the window: hot
                record(0, 3, cancel("order-7")),
                record(1, 4, explicit));

        IntakePoll poll = IntakePoll.translate(records, TRANSLATOR, "m", null, Long.MAX_VALUE, far);

        assertEquals(4, poll.ops().size());
        WriteOp.Schedule first = (WriteOp.Schedule) poll.ops().get(0);
        assertTrue(first.far());
        assertEquals(null, first.envelope(), "the payload stays in the intake's log");
        assertEquals(new IntakeOrigin(INTAKE, 0, 1), first.origin());
        assertEquals(NOW + 86_400_000, first.dueAt());
        assertEquals(NOW, first.timestamp());
        WriteOp.Schedule hot = (WriteOp.Schedule) poll.ops().get(1);
        assertFalse(hot.far());
        assertTrue(hot.envelope() != null && hot.envelope().length > 0);
        assertInstanceOf(WriteOp.Cancel.class, poll.ops().get(2), "a cancel never goes far");
        WriteOp.Schedule named = (WriteOp.Schedule) poll.ops().get(3);
        assertTrue(named.far(), "an explicit id goes far too: the store keeps its version");
        assertEquals("order-1", named.id());
    }

    @Test
    void aRecordOnTheExpressPathNeverGoesFar() {
        FarPolicy far = farPolicy(0); // every record not yet due would go far
        IntakePoll poll = IntakePoll.translate(
                List.of(record(0, 1, until(NOW + 100)), record(1, 2, until(NOW + 100_000))),
                TRANSLATOR,
                "m",
                new ExpressGate(250, 100, 1_000_000),
                NOW,
                far);
        assertEquals(
                List.of(INTAKE + "-0-1"),
                poll.express().stream().map(IntakePoll.ExpressRecord::id).toList());
        assertFalse(poll.express().get(0).op().far(), "parked after a failed check: hot");
        assertEquals(1, poll.ops().size());
        assertTrue(((WriteOp.Schedule) poll.ops().get(0)).far(), "beyond the express window: far");
    }

    @Test
    void withoutAFarPolicyEveryScheduleIsStoredHot() {
        IntakePoll poll = IntakePoll.translate(
                List.of(record(0, 1, until(NOW + 86_400_000))), TRANSLATOR, "m", null, Long.MAX_VALUE, FarPolicy.NONE);
        assertFalse(((WriteOp.Schedule) poll.ops().get(0)).far());
    }

    private static FarPolicy farPolicy(long windowMillis) {
        FarPolicy far = new FarPolicy(windowMillis, Clock.fixed(Instant.ofEpochMilli(NOW), ZoneOffset.UTC));
        far.retention(FarRetention.of(INTAKE, java.util.Map.of("retention.ms", "604800000"), 3_600_000));
        return far;
    }

    private static RecordHeaders until(long dueAt) {
        RecordHeaders headers = new RecordHeaders();
        headers.add(DelayHeaders.TARGET, utf8("orders"));
        headers.add(DelayHeaders.UNTIL, utf8(Long.toString(dueAt)));
        return headers;
    }

    private static RecordHeaders cancel(String id) {
        RecordHeaders headers = new RecordHeaders();
        headers.add(DelayHeaders.CANCEL, utf8(id));
        return headers;
    }

    private static ConsumerRecord<byte[], byte[]> record(int partition, long offset, RecordHeaders headers) {
        byte[] value = utf8("v");
        return new ConsumerRecord<>(
                INTAKE,
                partition,
                offset,
                NOW,
                TimestampType.CREATE_TIME,
                0,
                value.length,
                null,
                value,
                headers == null ? new RecordHeaders() : headers,
                Optional.empty());
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}

package io.delaybridge.connectors;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.schemas.ContractViolation;
import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.schemas.IntakeCommand;
import io.delaybridge.schemas.IntakeParser;
import io.delaybridge.schemas.TargetPolicy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

class DelayedRecordsTest {

    /** The bridge's parser with the bridge's default topics: what it accepts, the bridge accepts. */
    private static final IntakeParser BRIDGE = new IntakeParser(
            new TargetPolicy("delay-intake", "delay-deadletter", List.of()),
            Duration.ofDays(365).toMillis());

    private static final long TIMESTAMP = 1_795_334_400_000L;

    @Test
    void scheduleGoesToTheIntakeWithTargetAndDelayMs() {
        ProducerRecord<String, String> r = DelayedRecords.to(
                        "orders.timeout", "order-42", "{\"order\":42}", Delay.of(Duration.ofMinutes(30)))
                .toRecord();

        assertEquals("delay-intake", r.topic());
        assertEquals("order-42", r.key());
        assertEquals("{\"order\":42}", r.value());
        assertNull(r.partition(), "the intake partition is the producer's partitioner's choice");
        assertNull(r.timestamp(), "the delay counts from the timestamp the producer or broker assigns");
        assertEquals(List.of("delay-target=orders.timeout", "delay-ms=1800000"), rendered(r.headers()));
    }

    @Test
    void untilRendersDelayUntil() {
        ProducerRecord<String, String> r = DelayedRecords.to(
                        "orders.timeout", "k", "v", Delay.until(Instant.parse("2026-11-22T08:00:00Z")))
                .toRecord();
        assertEquals(List.of("delay-target=orders.timeout", "delay-until=1795334400000"), rendered(r.headers()));
    }

    @Test
    void idAndPartitionBecomeHeaders() {
        ProducerRecord<String, String> r = DelayedRecords.to("orders.timeout", "k", "v", Delay.ofMillis(5))
                .withId("order-42-timeout")
                .withPartition(3)
                .toRecord();
        assertEquals(
                List.of("delay-target=orders.timeout", "delay-ms=5", "delay-id=order-42-timeout", "delay-partition=3"),
                rendered(r.headers()));
    }

    @Test
    void theBridgesParserReadsWhatWasBuilt() throws ContractViolation {
        ProducerRecord<String, String> r = DelayedRecords.to("orders.timeout", "k", "v", Delay.ofMillis(1500))
                .withId("ünïcode id")
                .withPartition(7)
                .withHeaders(List.of(new RecordHeader("trace", "abc".getBytes(StandardCharsets.UTF_8))))
                .toRecord();

        IntakeCommand.Schedule s =
                assertInstanceOf(IntakeCommand.Schedule.class, BRIDGE.parse(r.headers(), TIMESTAMP, "default-id"));
        assertEquals("orders.timeout", s.target());
        assertEquals(TIMESTAMP + 1500, s.dueAt());
        assertEquals("ünïcode id", s.id());
        assertTrue(s.explicitId());
        assertEquals(7, s.partition());

        ProducerRecord<String, String> until = DelayedRecords.to(
                        "orders.timeout", "k", "v", Delay.until(Instant.ofEpochMilli(TIMESTAMP + 60_000)))
                .toRecord();
        assertEquals(
                TIMESTAMP + 60_000, ((IntakeCommand.Schedule) BRIDGE.parse(until.headers(), TIMESTAMP, "d")).dueAt());
    }

    @Test
    void theBridgesParserReadsTheCancel() throws ContractViolation {
        ProducerRecord<String, String> r =
                DelayedRecords.<String, String>cancel("order-42-timeout").toRecord();
        IntakeCommand.Cancel c =
                assertInstanceOf(IntakeCommand.Cancel.class, BRIDGE.parse(r.headers(), TIMESTAMP, "d"));
        assertEquals("order-42-timeout", c.id());
    }

    @Test
    void userHeadersAreKeptInOrderWithDuplicatesAndNulls() {
        Headers user = new RecordHeaders()
                .add("trace", "t1".getBytes(StandardCharsets.UTF_8))
                .add("tenant", null)
                .add("trace", "t2".getBytes(StandardCharsets.UTF_8));
        ProducerRecord<String, String> r = DelayedRecords.to("orders.timeout", "k", "v", Delay.ofMillis(5))
                .withHeaders(user)
                .toRecord();
        assertEquals(
                List.of("delay-target=orders.timeout", "delay-ms=5", "trace=t1", "tenant=null", "trace=t2"),
                rendered(r.headers()));
        assertEquals(List.of("trace=t1", "tenant=null", "trace=t2"), rendered(IntakeParser.userHeaders(r.headers())));
    }

    @Test
    void userHeadersAreCopiedNotShared() {
        byte[] value = "before".getBytes(StandardCharsets.UTF_8);
        Headers user = new RecordHeaders().add("trace", value);
        DelayedRecords.Schedule<String, String> s =
                DelayedRecords.to("t", "k", "v", Delay.ofMillis(5)).withHeaders(user);
        value[0] = 'X';
        user.add("late", new byte[0]);

        ProducerRecord<String, String> first = s.toRecord();
        assertArrayEquals(
                "before".getBytes(StandardCharsets.UTF_8),
                first.headers().lastHeader("trace").value());
        assertNull(first.headers().lastHeader("late"));

        first.headers().add("changed-by-interceptor", new byte[0]);
        assertNull(s.toRecord().headers().lastHeader("changed-by-interceptor"), "each toRecord is fresh");
    }

    @Test
    void withHeadersReplacesEarlierUserHeaders() {
        ProducerRecord<String, String> r = DelayedRecords.to("t", "k", "v", Delay.ofMillis(5))
                .withHeaders(List.of(new RecordHeader("a", null)))
                .withHeaders(List.of(new RecordHeader("b", null)))
                .toRecord();
        assertNull(r.headers().lastHeader("a"));
        assertEquals(List.of("delay-target=t", "delay-ms=5", "b=null"), rendered(r.headers()));
    }

    @Test
    void controlHeadersAmongUserHeadersAreRejected() {
        for (String name : List.of(
                DelayHeaders.TARGET,
                DelayHeaders.DELAY_MS,
                DelayHeaders.UNTIL,
                DelayHeaders.ID,
                DelayHeaders.CANCEL,
                DelayHeaders.PARTITION,
                "delay-msec")) {
            DelayedRecords.Schedule<String, String> s = DelayedRecords.to("t", "k", "v", Delay.ofMillis(5));
            List<Header> user = List.of(new RecordHeader(name, "x".getBytes(StandardCharsets.UTF_8)));
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> s.withHeaders(user), name);
            assertTrue(e.getMessage().contains("\"" + name + "\" is reserved"), e.getMessage());
        }
    }

    @Test
    void provenanceHeadersOfADeliveredRecordMayBePassedOn() throws ContractViolation {
        Headers delivered = new RecordHeaders()
                .add("trace", "t".getBytes(StandardCharsets.UTF_8))
                .add(DelayHeaders.DUE_AT, "1".getBytes(StandardCharsets.UTF_8))
                .add(DelayHeaders.ORIGIN, "delay-intake/0/1".getBytes(StandardCharsets.UTF_8))
                .add(DelayHeaders.ATTEMPT, "1".getBytes(StandardCharsets.UTF_8));
        ProducerRecord<String, String> r = DelayedRecords.to("t", "k", "v", Delay.ofMillis(5))
                .withHeaders(delivered)
                .toRecord();
        assertInstanceOf(IntakeCommand.Schedule.class, BRIDGE.parse(r.headers(), TIMESTAMP, "d"));
    }

    @Test
    void aNullValueIsADelayedTombstone() {
        ProducerRecord<String, String> r = DelayedRecords.<String, String>to("compacted", "k", null, Delay.ofMillis(5))
                .toRecord();
        assertNull(r.value());
        assertEquals("k", r.key());
    }

    @Test
    void intakeTopicCanBeChanged() {
        assertEquals(
                "my-intake",
                DelayedRecords.to("t", "k", "v", Delay.ofMillis(5))
                        .intake("my-intake")
                        .toRecord()
                        .topic());
        assertEquals(
                "my-intake",
                DelayedRecords.cancel("id").intake("my-intake").toRecord().topic());
    }

    @Test
    void cancelCarriesOnlyDelayCancelAndANullValue() {
        ProducerRecord<String, String> r =
                DelayedRecords.<String, String>cancel("order-42-timeout").toRecord();
        assertEquals("delay-intake", r.topic());
        assertNull(r.key());
        assertNull(r.value());
        assertEquals(List.of("delay-cancel=order-42-timeout"), rendered(r.headers()));
    }

    @Test
    void cancelCanCarryTheScheduledKey() {
        ProducerRecord<String, String> r = DelayedRecords.<String, String>cancel("order-42-timeout")
                .withKey("order-42")
                .toRecord();
        assertEquals("order-42", r.key());
        assertNull(r.value());
    }

    @Test
    void nullTargetIsRejected() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class, () -> DelayedRecords.to(null, "k", "v", Delay.ofMillis(5)));
        assertTrue(e.getMessage().startsWith("delay-target: null"), e.getMessage());
    }

    @Test
    void illegalTargetsAreRejectedWithTheBridgesWording() {
        assertMessage("is not a Kafka topic name", () -> DelayedRecords.to("", "k", "v", Delay.ofMillis(5)));
        assertMessage("illegal character", () -> DelayedRecords.to("orders timeout", "k", "v", Delay.ofMillis(5)));
        assertMessage("Kafka internal", () -> DelayedRecords.to("__consumer_offsets", "k", "v", Delay.ofMillis(5)));
        assertMessage("intake topic", () -> DelayedRecords.to("delay-intake", "k", "v", Delay.ofMillis(5)));
        assertMessage(
                "intake topic",
                () -> DelayedRecords.to("my-intake", "k", "v", Delay.ofMillis(5))
                        .intake("my-intake"));
    }

    @Test
    void theDeadletterTopicIsLeftToTheBridgeWhichKnowsItsName() {
        // the client cannot know the bridge's deadletter topic; a false rejection here would have no workaround
        DelayedRecords.to("delay-deadletter", "k", "v", Delay.ofMillis(5));
    }

    @Test
    void nullDelayIsRejected() {
        assertMessage("delay is null", () -> DelayedRecords.to("t", "k", "v", null));
    }

    @Test
    void blankOrLongIdsAreRejected() {
        DelayedRecords.Schedule<String, String> s = DelayedRecords.to("t", "k", "v", Delay.ofMillis(5));
        assertMessage("delay-id: null is not a message id", () -> s.withId(null));
        assertMessage("delay-id: \"\" is not a message id: blank", () -> s.withId(""));
        assertMessage("blank", () -> s.withId(" \t"));
        assertMessage("513 bytes", () -> s.withId("x".repeat(513)));
        assertMessage("514 bytes", () -> s.withId("é".repeat(257)));
        s.withId("x".repeat(IntakeParser.MAX_ID_BYTES));

        assertMessage("delay-cancel: \"  \" is not a message id", () -> DelayedRecords.cancel("  "));
        assertMessage("delay-cancel: null", () -> DelayedRecords.cancel(null));
        assertMessage("513 bytes", () -> DelayedRecords.cancel("x".repeat(513)));
    }

    @Test
    void negativePartitionIsRejected() {
        assertMessage(
                "delay-partition: -1 is not a partition",
                () -> DelayedRecords.to("t", "k", "v", Delay.ofMillis(5)).withPartition(-1));
    }

    @Test
    void badUserHeaderCollectionsAreRejected() {
        DelayedRecords.Schedule<String, String> s = DelayedRecords.to("t", "k", "v", Delay.ofMillis(5));
        assertMessage("headers is null", () -> s.withHeaders(null));
        List<Header> withNull = new ArrayList<>();
        withNull.add(null);
        assertMessage("null header", () -> s.withHeaders(withNull));
    }

    @Test
    void blankIntakeIsRejected() {
        assertMessage(
                "intake topic",
                () -> DelayedRecords.to("t", "k", "v", Delay.ofMillis(5)).intake(" "));
        assertMessage("intake topic", () -> DelayedRecords.cancel("id").intake(null));
    }

    @Test
    void buildersAreImmutable() {
        DelayedRecords.Schedule<String, String> base = DelayedRecords.to("t", "k", "v", Delay.ofMillis(5));
        base.withId("id").withPartition(1).intake("other");
        ProducerRecord<String, String> r = base.toRecord();
        assertEquals("delay-intake", r.topic());
        assertEquals(List.of("delay-target=t", "delay-ms=5"), rendered(r.headers()));

        DelayedRecords.Cancel<String, String> cancel = DelayedRecords.cancel("id");
        cancel.withKey("k").intake("other");
        assertNull(cancel.toRecord().key());
        assertEquals("delay-intake", cancel.toRecord().topic());
    }

    @Test
    void toStringNamesWhatMatters() {
        String s = DelayedRecords.to("orders.timeout", "k", "v", Delay.of(Duration.ofMinutes(30)))
                .withId("a")
                .toString();
        assertTrue(s.contains("target=orders.timeout") && s.contains("Delay[30m]") && s.contains("id=\"a\""), s);
        assertFalse(DelayedRecords.cancel("x").toString().isEmpty());
    }

    private static void assertMessage(String expected, org.junit.jupiter.api.function.Executable call) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
        assertTrue(e.getMessage().contains(expected), "expected \"" + expected + "\" in: " + e.getMessage());
    }

    static List<String> rendered(Iterable<Header> headers) {
        List<String> out = new ArrayList<>();
        for (Header h : headers) {
            out.add(h.key() + "=" + (h.value() == null ? "null" : new String(h.value(), StandardCharsets.UTF_8)));
        }
        return out;
    }
}

package io.delaybridge.bridge.rules;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.codahale.metrics.MetricRegistry;
import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.schemas.ErrorCode;
import io.delaybridge.schemas.IntakeParser;
import io.delaybridge.schemas.TargetPolicy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.regex.Pattern;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The rule topology, driven record by record with {@link TopologyTestDriver}: every rule option, every rejection. */
class RuleTopologyTest {

    private static final String INTAKE = "delay-intake";
    private static final String DEADLETTER = "delay-deadletter";
    private static final Instant T0 = Instant.parse("2026-11-23T10:00:00Z");

    private final MetricRegistry registry = new MetricRegistry();
    private final List<ErrorCode> deadlettered = new ArrayList<>();
    private TopologyTestDriver driver;
    private TestOutputTopic<byte[], byte[]> intake;
    private TestOutputTopic<byte[], byte[]> deadletter;
    private List<RuleMeters> meters;

    private void start(Rule... rules) {
        meters = java.util.Arrays.stream(rules)
                .map(r -> new RuleMeters(registry, r.name()))
                .toList();
        IntakeParser verifier = new IntakeParser(
                new TargetPolicy(INTAKE, DEADLETTER, List.of("orders\\..*")),
                Duration.ofDays(365).toMillis());
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "rules-test");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        driver = new TopologyTestDriver(
                RuleTopology.build(
                        List.of(rules), meters, new RuleRecords(verifier), INTAKE, DEADLETTER, true, deadlettered::add),
                props,
                T0);
        intake = driver.createOutputTopic(INTAKE, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        deadletter = driver.createOutputTopic(DEADLETTER, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    @AfterEach
    void close() {
        if (driver != null) {
            driver.close();
        }
    }

    private TestInputTopic<byte[], byte[]> input(String topic) {
        return driver.createInputTopic(topic, new ByteArraySerializer(), new ByteArraySerializer());
    }

    private static void send(TestInputTopic<byte[], byte[]> in, String key, String value, String... headerPairs) {
        Headers headers = new RecordHeaders();
        for (int i = 0; i < headerPairs.length; i += 2) {
            headers.add(headerPairs[i], bytes(headerPairs[i + 1]));
        }
        in.pipeInput(new TestRecord<>(bytes(key), bytes(value), headers, T0));
    }

    private static Rule schedule(
            String name, String source, String target, RuleDelay delay, Integer partition, String id) {
        return Rule.schedule(
                name,
                List.of(source),
                null,
                target,
                delay,
                partition,
                IdTemplate.parse(id == null ? IdTemplate.DEFAULT : id));
    }

    private static Rule fixed(String name, String source, String id) {
        return schedule(name, source, "orders.timeout", new RuleDelay.Fixed(30 * 60_000L), null, id);
    }

    @Test
    void aFixedDelayRuleWritesTheControlHeadersTheSourceRecordAndItsProvenance() {
        start(fixed("order-timeout", "orders.created", "order-timeout:{key}"));
        send(input("orders.created"), "order-42", "{\"order\":42}", "trace", "abc");

        TestRecord<byte[], byte[]> out = intake.readRecord();
        assertEquals("order-42", text(out.key()));
        assertEquals("{\"order\":42}", text(out.value()));
        assertEquals(T0, out.getRecordTime(), "the delay counts from the source record's timestamp");
        assertEquals("orders.timeout", header(out, DelayHeaders.TARGET));
        assertEquals("1800000", delay(out));
        assertEquals("order-timeout:order-42", header(out, DelayHeaders.ID));
        assertNull(header(out, DelayHeaders.PARTITION));
        assertEquals("abc", header(out, "trace"));
        assertEquals("order-timeout", header(out, RuleRecords.RULE_HEADER));
        assertEquals("orders.created/0/0", header(out, RuleRecords.SOURCE_HEADER));
        assertTrue(intake.isEmpty());
        assertTrue(deadletter.isEmpty());
        assertEquals(1, meters.get(0).scheduled());
    }

    @Test
    void theIntakeAcceptsWhatARuleWrites() throws Exception {
        start(schedule("r", "orders.created", "orders.timeout", new RuleDelay.Fixed(5_000), 3, "x:{key}"));
        send(input("orders.created"), "k", "v");
        TestRecord<byte[], byte[]> out = intake.readRecord();
        var command = new IntakeParser(new TargetPolicy(INTAKE, DEADLETTER, List.of()), 86_400_000L)
                .parse(out.headers(), T0.toEpochMilli(), "unused");
        var expected = new io.delaybridge.schemas.IntakeCommand.Schedule(
                "orders.timeout", T0.toEpochMilli() + 5_000, "x:k", true, 3);
        assertEquals(expected, command);
    }

    @Test
    void theTargetPartitionAndTheDefaultIdFromTheSourceCoordinates() {
        start(schedule("p", "orders.created", "orders.timeout", new RuleDelay.Fixed(1_000), 2, null));
        TestInputTopic<byte[], byte[]> in = input("orders.created");
        send(in, "a", "1");
        send(in, "b", "2");
        intake.readRecord();
        TestRecord<byte[], byte[]> second = intake.readRecord();
        assertEquals("2", header(second, DelayHeaders.PARTITION));
        assertEquals("p:orders.created-0-1", header(second, DelayHeaders.ID));
    }

    @Test
    void aCancelRuleWritesACancelUnderTheSourceKeyWithoutTheValue() {
        start(
                fixed("order-timeout", "orders.created", "order-timeout:{key}"),
                Rule.cancel("order-paid", List.of("orders.paid"), null, IdTemplate.parse("order-timeout:{key}")));
        send(input("orders.paid"), "order-42", "{\"paid\":true}");
        TestRecord<byte[], byte[]> out = intake.readRecord();
        assertEquals("order-timeout:order-42", header(out, DelayHeaders.CANCEL));
        assertNull(header(out, DelayHeaders.TARGET));
        assertEquals("order-42", text(out.key()), "the cancel lands on the schedule's intake partition");
        assertNull(out.value());
        assertEquals("order-paid", header(out, RuleRecords.RULE_HEADER));
        assertEquals(1, meters.get(1).cancelled());
        assertEquals(0, meters.get(0).scheduled());
    }

    @Test
    void aDelayFromAHeaderWithAFallbackAndItsRejections() {
        start(
                schedule(
                        "h",
                        "orders.created",
                        "orders.timeout",
                        new RuleDelay.FromHeader("x-timeout", 60_000L),
                        null,
                        null),
                schedule(
                        "strict",
                        "orders.other",
                        "orders.timeout",
                        new RuleDelay.FromHeader("x-timeout", null),
                        null,
                        null));
        TestInputTopic<byte[], byte[]> in = input("orders.created");
        send(in, "a", "1", "x-timeout", "5s");
        send(in, "b", "2");
        send(in, "c", "3", "x-timeout", "soon");
        send(in, "d", "4", "x-timeout", "PT2M");
        assertEquals("5000", delay(intake.readRecord()));
        assertEquals("60000", delay(intake.readRecord()), "the fallback");
        assertEquals("120000", delay(intake.readRecord()), "the record after a bad one");
        TestRecord<byte[], byte[]> bad = deadletter.readRecord();
        assertEquals(ErrorCode.INVALID_DELAY.name(), header(bad, DelayHeaders.ERROR));
        assertTrue(
                header(bad, DelayHeaders.ERROR_MESSAGE).contains("header \"x-timeout\": \"soon\" is not a delay"),
                header(bad, DelayHeaders.ERROR_MESSAGE));

        send(input("orders.other"), "e", "5");
        TestRecord<byte[], byte[]> missing = deadletter.readRecord();
        assertEquals(ErrorCode.MISSING_DELAY.name(), header(missing, DelayHeaders.ERROR));
        assertTrue(header(missing, DelayHeaders.ERROR_MESSAGE).contains("delayFallback"));
        assertEquals(List.of(ErrorCode.INVALID_DELAY, ErrorCode.MISSING_DELAY), deadlettered);
    }

    @Test
    void aDelayFromAJsonFieldAsTextOrMillisecondsNestedOrFallingBack() {
        start(schedule(
                "f",
                "orders.created",
                "orders.timeout",
                new RuleDelay.FromField("payment.timeout", 1L),
                null,
                "f:{field:id}"));
        TestInputTopic<byte[], byte[]> in = input("orders.created");
        send(in, "a", "{\"id\":7,\"payment\":{\"timeout\":\"2s\"}}");
        send(in, "b", "{\"id\":8,\"payment\":{\"timeout\":1500}}");
        send(in, "c", "{\"id\":9}");
        TestRecord<byte[], byte[]> first = intake.readRecord();
        assertEquals("2000", delay(first));
        assertEquals("f:7", header(first, DelayHeaders.ID));
        assertEquals("1500", delay(intake.readRecord()));
        assertEquals("1", delay(intake.readRecord()));
    }

    @Test
    void everyRejectionGoesToTheDeadletterTopicWithItsCodeAndTheSourceRecord() {
        start(
                schedule("json", "orders.json", "orders.timeout", new RuleDelay.FromField("timeout", null), null, null),
                fixed("keyed", "orders.keyed", "k:{key}"),
                fixed("hdr", "orders.hdr", "h:{header:order}"),
                fixed("long", "orders.long", "{key}"),
                schedule("far", "orders.far", "orders.timeout", new RuleDelay.Fixed(400L * 86_400_000), null, null),
                schedule("forbidden", "orders.forbidden", "payments", new RuleDelay.Fixed(1), null, null),
                schedule(
                        "negative",
                        "orders.negative",
                        "orders.timeout",
                        new RuleDelay.FromField("timeout", null),
                        null,
                        null),
                Rule.cancel("blank", List.of("orders.blank"), null, IdTemplate.parse("{header:order}")));
        send(input("orders.json"), "a", "not json", "trace", "t1");
        send(input("orders.keyed"), null, "v");
        send(input("orders.hdr"), "a", "v");
        send(input("orders.long"), "x".repeat(600), "v");
        send(input("orders.far"), "a", "v");
        send(input("orders.forbidden"), "a", "v");
        send(input("orders.negative"), "a", "{\"timeout\":-5}");
        send(input("orders.blank"), "a", "v", "order", " ");
        List<TestRecord<byte[], byte[]>> bad = deadletter.readRecordsToList();
        assertEquals(
                List.of(
                        "INVALID_VALUE",
                        "MISSING_KEY",
                        "MISSING_FIELD",
                        "INVALID_ID",
                        "DELAY_TOO_LONG",
                        "TARGET_FORBIDDEN",
                        "INVALID_DELAY",
                        "INVALID_CANCEL"),
                bad.stream().map(r -> header(r, DelayHeaders.ERROR)).toList());
        TestRecord<byte[], byte[]> first = bad.get(0);
        assertEquals("a", text(first.key()));
        assertEquals("not json", text(first.value()));
        assertEquals("t1", header(first, "trace"), "the source record's headers are kept");
        assertEquals("orders.json/0/0", header(first, DelayHeaders.ORIGIN));
        assertEquals("json", header(first, RuleRecords.RULE_HEADER));
        for (TestRecord<byte[], byte[]> r : bad) {
            String message = header(r, DelayHeaders.ERROR_MESSAGE);
            assertTrue(message.startsWith("rule " + header(r, RuleRecords.RULE_HEADER) + ": "), message);
        }
        assertTrue(intake.isEmpty());
        assertEquals(1, meters.get(0).rejected());
    }

    @Test
    void sourceControlHeadersAreNotPassedOnAndEarlierProvenanceIsReplaced() {
        start(fixed("r", "orders.created", "r:{key}"));
        send(
                input("orders.created"),
                "a",
                "v",
                DelayHeaders.ID,
                "old",
                DelayHeaders.DUE_AT,
                "1",
                RuleRecords.SOURCE_HEADER,
                "elsewhere/0/0",
                "user",
                "u");
        TestRecord<byte[], byte[]> out = intake.readRecord();
        List<String> names = new ArrayList<>();
        for (Header h : out.headers()) {
            names.add(h.key());
        }
        assertEquals(
                List.of(
                        DelayHeaders.TARGET,
                        DelayHeaders.UNTIL,
                        DelayHeaders.ID,
                        "user",
                        RuleRecords.RULE_HEADER,
                        RuleRecords.SOURCE_HEADER),
                names);
        assertEquals("r:a", header(out, DelayHeaders.ID));
    }

    @Test
    void aPatternRuleReadsEveryMatchingTopicAndRulesOnOneSourceEachWriteTheirRecord() {
        start(
                Rule.schedule(
                        "all",
                        List.of(),
                        Pattern.compile("orders\\.(created|updated)"),
                        "orders.timeout",
                        new RuleDelay.Fixed(1_000),
                        null,
                        IdTemplate.parse("{topic}:{key}")),
                Rule.schedule(
                        "also",
                        List.of(),
                        Pattern.compile("orders\\.(created|updated)"),
                        "orders.audit",
                        new RuleDelay.Fixed(2_000),
                        null,
                        IdTemplate.parse("audit:{key}")));
        send(input("orders.created"), "a", "1");
        send(input("orders.updated"), "b", "2");
        List<String> ids = intake.readRecordsToList().stream()
                .map(r -> header(r, DelayHeaders.ID))
                .toList();
        assertEquals(List.of("orders.created:a", "audit:a", "orders.updated:b", "audit:b"), ids);
    }

    @Test
    void theRulesRunWithoutRocksDbOnTheClassPath() {
        // the bridge's fat jar ships Kafka Streams without rocksdbjni; this test's class path is built the same way
        org.junit.jupiter.api.Assertions.assertThrows(
                ClassNotFoundException.class, () -> Class.forName("org.rocksdb.RocksDB"));
        start(fixed("r", "orders.created", "r:{key}"));
        send(input("orders.created"), "a", "v");
        assertEquals("r:a", header(intake.readRecord(), DelayHeaders.ID));
    }

    @Test
    void templatesAreCheckedAndComparedByTheirLiteralText() {
        IdTemplate schedule = IdTemplate.parse("order-timeout:{key}");
        assertTrue(IdTemplate.parse("order-timeout:{field:order}").canMatch("c", schedule, "s"));
        assertFalse(IdTemplate.parse("order-expiry:{key}").canMatch("c", schedule, "s"));
        assertTrue(IdTemplate.parse("{rule}:{key}").canMatch("order-timeout", schedule, "s"));
        assertFalse(IdTemplate.parse("fixed").canMatch("c", IdTemplate.parse("other"), "s"));
        assertTrue(IdTemplate.parse("fixed").canMatch("c", IdTemplate.parse("fixed"), "s"));
        assertTrue(IdTemplate.parse("{rule}:{offset}").usesOffset());
        for (String bad : List.of("{nope}", "a{key", "a}b", " ", "{header:}")) {
            try {
                IdTemplate.parse(bad);
                throw new AssertionError("accepted " + bad);
            } catch (IllegalArgumentException e) {
                assertFalse(e.getMessage().isBlank());
            }
        }
    }

    /** The delay a record asks for: its delay-until after the source timestamp. */
    private static String delay(TestRecord<byte[], byte[]> record) {
        return Long.toString(Long.parseLong(header(record, DelayHeaders.UNTIL)) - T0.toEpochMilli());
    }

    private static String header(TestRecord<byte[], byte[]> record, String name) {
        Header h = record.headers().lastHeader(name);
        return h == null ? null : text(h.value());
    }

    private static String text(byte[] bytes) {
        return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
    }

    private static byte[] bytes(String text) {
        return text == null ? null : text.getBytes(StandardCharsets.UTF_8);
    }
}

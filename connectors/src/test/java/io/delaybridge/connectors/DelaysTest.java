package io.delaybridge.connectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.schemas.IntakeCommand;
import io.delaybridge.schemas.IntakeParser;
import io.delaybridge.schemas.TargetPolicy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.function.Consumer;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.errors.StreamsException;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;

/** The Kafka Streams helper with {@link TopologyTestDriver}: what it writes is what the bridge's parser accepts. */
class DelaysTest {

    private static final Instant T0 = Instant.parse("2026-11-23T10:00:00Z");
    private static final IntakeParser PARSER =
            new IntakeParser(new TargetPolicy("delay-intake", "delay-deadletter", List.of()), Long.MAX_VALUE);

    private record Run(
            TopologyTestDriver driver, TestInputTopic<String, String> in, TestOutputTopic<String, String> out) {}

    private static Run run(String intake, Consumer<KStream<String, String>> topology) {
        StreamsBuilder builder = new StreamsBuilder();
        topology.accept(builder.stream("orders", Consumed.with(Serdes.String(), Serdes.String())));
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "delays-test");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        props.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        TopologyTestDriver driver = new TopologyTestDriver(builder.build(), props, T0);
        return new Run(
                driver,
                driver.createInputTopic("orders", new StringSerializer(), new StringSerializer()),
                driver.createOutputTopic(intake, new StringDeserializer(), new StringDeserializer()));
    }

    @Test
    void oneCallSchedulesEveryRecordAfterADelayFromItsTimestamp() throws Exception {
        Run r = run("delay-intake", s -> Delays.to(s, "orders.timeout", record -> Duration.ofMinutes(30)));
        try (TopologyTestDriver ignored = r.driver()) {
            RecordHeaders headers = new RecordHeaders();
            headers.add("trace", bytes("t1"));
            headers.add(DelayHeaders.ID, bytes("from an earlier delivery"));
            r.in().pipeInput(new TestRecord<>("order-42", "{\"order\":42}", headers, T0));
            TestRecord<String, String> out = r.out().readRecord();
            assertEquals("order-42", out.key());
            assertEquals("{\"order\":42}", out.value());
            assertEquals("t1", header(out, "trace"));
            IntakeCommand.Schedule command =
                    (IntakeCommand.Schedule) PARSER.parse(out.headers(), out.timestamp(), "default-id");
            assertEquals("orders.timeout", command.target());
            assertEquals(T0.plus(Duration.ofMinutes(30)).toEpochMilli(), command.dueAt());
            assertEquals("default-id", command.id(), "a delay- header of the stream record is not passed on");
            assertNull(command.partition());
        }
    }

    @Test
    void aSeriesPerRecordUnderItsId() throws Exception {
        Run r = run(
                "delay-intake",
                s -> Delays.series(
                        s,
                        "reports.due",
                        record -> Repeat.every(Duration.ofHours(1)).times(2),
                        DelayOptions.<String, String>defaults().withId(record -> "report:" + record.key())));
        try (TopologyTestDriver ignored = r.driver()) {
            RecordHeaders headers = new RecordHeaders();
            headers.add("trace", bytes("t1"));
            r.in().pipeInput(new TestRecord<>("r1", "v", headers, T0));
            TestRecord<String, String> out = r.out().readRecord();
            assertEquals("r1", out.key());
            assertEquals("t1", header(out, "trace"));
            io.delaybridge.schemas.SeriesRecord.First first = io.delaybridge.schemas.SeriesRecord.read(
                            PARSER, out.headers(), out.timestamp())
                    .orElseThrow();
            assertEquals("report:r1", first.schedule().id());
            assertEquals("reports.due", first.schedule().target());
            assertEquals(
                    T0.plus(Duration.ofHours(1)).toEpochMilli(),
                    first.schedule().dueAt());
        }
        assertThrows(
                IllegalArgumentException.class,
                () -> Delays.scheduleSeries(
                        "reports.due",
                        record -> Repeat.every(Duration.ofHours(1)),
                        DelayOptions.<String, String>defaults()),
                "a series needs an id");
    }

    @Test
    void theIdPartitionIntakeAndSerdesOptions() throws Exception {
        Run r = run(
                "my-intake",
                s -> Delays.to(
                        s,
                        "orders.timeout",
                        record -> Duration.ofSeconds(5),
                        DelayOptions.<String, String>defaults()
                                .withId(record -> "order-timeout:" + record.key())
                                .withPartition(record -> record.key().length() % 3)
                                .intake("my-intake")
                                .produced(Produced.with(Serdes.String(), Serdes.String()))));
        try (TopologyTestDriver ignored = r.driver()) {
            r.in().pipeInput(new TestRecord<>("order-42", "v", new RecordHeaders(), T0));
            TestRecord<String, String> out = r.out().readRecord();
            IntakeCommand.Schedule command = (IntakeCommand.Schedule) PARSER.parse(out.headers(), 0, "unused");
            assertEquals("order-timeout:order-42", command.id());
            assertEquals(Integer.valueOf(2), command.partition());
            assertEquals(T0.toEpochMilli() + 5_000, command.dueAt());
        }
    }

    @Test
    void aCancelProcessorKeepsTheKeyAndDropsTheValue() throws Exception {
        Run r = run(
                "delay-intake",
                s -> s.processValues(Delays.cancel(record -> "order-timeout:" + record.key()))
                        .to("delay-intake"));
        try (TopologyTestDriver ignored = r.driver()) {
            r.in().pipeInput("order-42", "{\"paid\":true}");
            TestRecord<String, String> out = r.out().readRecord();
            assertEquals("order-42", out.key());
            assertNull(out.value());
            assertEquals(new IntakeCommand.Cancel("order-timeout:order-42"), PARSER.parse(out.headers(), 0, "unused"));
        }
    }

    @Test
    void aScheduleProcessorTakesAnyDelayIncludingAnInstant() throws Exception {
        Instant due = Instant.parse("2026-12-01T00:00:00Z");
        Run r = run(
                "delay-intake",
                s -> s.processValues(
                                Delays.schedule("orders.reminder", record -> Delay.until(due), DelayOptions.defaults()))
                        .to("delay-intake"));
        try (TopologyTestDriver ignored = r.driver()) {
            r.in().pipeInput("k", "v");
            TestRecord<String, String> out = r.out().readRecord();
            assertEquals(
                    due.toEpochMilli(), ((IntakeCommand.Schedule) PARSER.parse(out.headers(), 0, "unused")).dueAt());
            List<String> names = new ArrayList<>();
            for (Header h : out.headers()) {
                names.add(h.key());
            }
            assertEquals(List.of(DelayHeaders.TARGET, DelayHeaders.UNTIL), names);
        }
    }

    @Test
    void badArgumentsFailAtOnceOrInTheStreamThread() {
        assertThrows(
                IllegalArgumentException.class,
                () -> Delays.schedule(
                        "__consumer_offsets", record -> Delay.ofMillis(0), DelayOptions.<String, String>defaults()));
        assertThrows(
                IllegalArgumentException.class,
                () -> Delays.schedule(
                        "delay-intake", record -> Delay.ofMillis(0), DelayOptions.<String, String>defaults()));
        Run r = run(
                "delay-intake",
                s -> Delays.to(
                        s,
                        "orders.timeout",
                        record -> Duration.ofSeconds(1),
                        DelayOptions.<String, String>defaults().withId(record -> " ")));
        try (TopologyTestDriver ignored = r.driver()) {
            StreamsException e = assertThrows(StreamsException.class, () -> r.in().pipeInput("k", "v"));
            Throwable cause = e;
            while (cause.getCause() != null && !(cause instanceof IllegalArgumentException)) {
                cause = cause.getCause();
            }
            assertInstanceOf(IllegalArgumentException.class, cause);
            assertTrue(cause.getMessage().contains("delay-id"), cause.getMessage());
        }
    }

    private static String header(TestRecord<String, String> record, String name) {
        Header h = record.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}

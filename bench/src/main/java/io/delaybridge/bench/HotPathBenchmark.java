package io.delaybridge.bench;

import io.delaybridge.bridge.delivery.DeliveryRecords;
import io.delaybridge.bridge.log.RecordTranslator;
import io.delaybridge.bridge.store.WriteOp;
import io.delaybridge.schemas.ContractViolation;
import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.schemas.Envelope;
import io.delaybridge.schemas.EnvelopeCodec;
import io.delaybridge.schemas.IntakeCommand;
import io.delaybridge.schemas.IntakeParser;
import io.delaybridge.schemas.TargetPolicy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * JMH micro-benchmarks of the bridge's per-record code, next to what a plain Kafka copy does per record, in one run
 * ({@code ./jmh.sh}, e.g. {@code ./jmh.sh -prof gc} for the bytes allocated per record).
 *
 * <p>The record is the typical intake record of {@link DelayBenchmark}: a 16-byte key, a 200-byte value, the control
 * headers {@code delay-target: orders.timeout} and {@code delay-until: <epoch ms>} (or {@code delay-ms: 30s}) and one
 * user header {@code trace-id}.
 * <ul>
 *   <li>{@code baselinePlainCopy}: what {@link PlainCopy} does per record, plus a copy of the value (the consumer
 *       hands out a fresh array per record): read the target header, build a {@link ProducerRecord} with the same
 *       key, value and headers.</li>
 *   <li>{@code intakeParse*}: {@link IntakeParser#parse} of the headers alone.</li>
 *   <li>{@code intakeTranslate}: {@link RecordTranslator#translate}, the intake's whole per-record work before Redis
 *       (parse, size check, user headers, envelope encoding).</li>
 *   <li>{@code envelopeEncode} / {@code envelopeDecode}: {@link EnvelopeCodec} on the envelope that record makes.</li>
 *   <li>{@code pumpToTarget}: {@link DeliveryRecords#toTarget} from a decoded envelope; {@code pumpDecodeAndToTarget}
 *       is the pump's per-record work before {@code producer.send}: decode, then build the record.</li>
 * </ul>
 * Nothing here touches Kafka or Redis: the figures are CPU time and allocation of the Java code alone.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class HotPathBenchmark {

    static final String INTAKE = "delay-intake";
    static final String DEADLETTER = "delay-deadletter";
    static final String TARGET = "orders.timeout";
    static final int PARTITION = 3;
    static final long OFFSET = 1_042_317L;
    static final long TIMESTAMP = Instant.parse("2026-11-22T08:00:00Z").toEpochMilli();
    static final long DUE_AT = TIMESTAMP + 30_000;
    static final int VALUE_BYTES = 200;
    static final int KEY_BYTES = 16;

    RecordTranslator translator;
    IntakeParser parser;
    String defaultId;
    Headers headersUntil;
    Headers headersDelayMs;
    ConsumerRecord<byte[], byte[]> record;
    Envelope envelope;
    byte[] encoded;
    String id;

    @Setup
    public void setUp() throws ContractViolation {
        long maxDelayMillis = Duration.ofDays(365).toMillis();
        // as the intake's settings build it (IntakeSettings.translator)
        translator = new RecordTranslator(
                new TargetPolicy(INTAKE, DEADLETTER, List.of()),
                maxDelayMillis,
                1_048_576,
                Duration.ofHours(1).toMillis());
        parser = new IntakeParser(new TargetPolicy(INTAKE, DEADLETTER, List.of()), maxDelayMillis);
        defaultId = IntakeParser.defaultId(INTAKE, PARTITION, OFFSET);

        Random random = new Random(42);
        byte[] key = new byte[KEY_BYTES];
        byte[] value = new byte[VALUE_BYTES];
        random.nextBytes(key);
        random.nextBytes(value);
        byte[] traceId = "4bf92f3577b34da6a3ce929d0e0e4736".getBytes(StandardCharsets.UTF_8);

        headersUntil = new RecordHeaders();
        headersUntil.add(DelayHeaders.TARGET, utf8(TARGET));
        headersUntil.add(DelayHeaders.UNTIL, utf8(Long.toString(DUE_AT)));
        headersUntil.add("trace-id", traceId);

        headersDelayMs = new RecordHeaders();
        headersDelayMs.add(DelayHeaders.TARGET, utf8(TARGET));
        headersDelayMs.add(DelayHeaders.DELAY_MS, utf8("30s"));
        headersDelayMs.add("trace-id", traceId);

        record = new ConsumerRecord<>(
                INTAKE,
                PARTITION,
                OFFSET,
                TIMESTAMP,
                TimestampType.CREATE_TIME,
                KEY_BYTES,
                VALUE_BYTES,
                key,
                value,
                headersUntil,
                Optional.empty());

        // the envelope exactly as the intake stores it for this record
        RecordTranslator.Translation t = translator.translate(record);
        if (t.rejected()) {
            throw t.rejection();
        }
        IntakeCommand command = parser.parse(headersUntil, TIMESTAMP, defaultId);
        id = ((IntakeCommand.Schedule) command).id();
        encoded = EnvelopeCodec.encode(new Envelope(
                TARGET,
                null,
                Envelope.origin(INTAKE, PARTITION, OFFSET),
                key,
                value,
                List.of(headersUntil.lastHeader("trace-id"))));
        envelope = EnvelopeCodec.decode(encoded);
        byte[] stored = ((WriteOp.Schedule) t.op()).envelope();
        if (!Arrays.equals(stored, encoded)) {
            throw new IllegalStateException("the benchmark's envelope differs from the one the intake stores");
        }
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** What a plain Kafka copy does per record: target from its header, a copy of the value, a ProducerRecord. */
    @Benchmark
    public ProducerRecord<byte[], byte[]> baselinePlainCopy() {
        Header target = record.headers().lastHeader(DelayHeaders.TARGET);
        byte[] value = Arrays.copyOf(record.value(), record.value().length);
        return new ProducerRecord<>(
                new String(target.value(), StandardCharsets.UTF_8), null, null, record.key(), value, record.headers());
    }

    @Benchmark
    public IntakeCommand intakeParseUntil() throws ContractViolation {
        return parser.parse(headersUntil, TIMESTAMP, defaultId);
    }

    @Benchmark
    public IntakeCommand intakeParseDelayMs() throws ContractViolation {
        return parser.parse(headersDelayMs, TIMESTAMP, defaultId);
    }

    @Benchmark
    public Object intakeTranslate() {
        return translator.translate(record).op(); // a parked record's work: its envelope encoded
    }

    @Benchmark
    public byte[] envelopeEncode() {
        return EnvelopeCodec.encode(envelope);
    }

    @Benchmark
    public Envelope envelopeDecode() {
        return EnvelopeCodec.decode(encoded);
    }

    @Benchmark
    public ProducerRecord<byte[], byte[]> pumpToTarget() {
        return DeliveryRecords.toTarget(envelope, id, DUE_AT, 1);
    }

    @Benchmark
    public ProducerRecord<byte[], byte[]> pumpDecodeAndToTarget() {
        return DeliveryRecords.toTarget(EnvelopeCodec.decode(encoded), id, DUE_AT, 1);
    }
}

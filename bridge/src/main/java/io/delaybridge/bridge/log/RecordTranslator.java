package io.delaybridge.bridge.log;

import io.delaybridge.bridge.store.WriteOp;
import io.delaybridge.schemas.ContractViolation;
import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.schemas.DelayText;
import io.delaybridge.schemas.Envelope;
import io.delaybridge.schemas.EnvelopeCodec;
import io.delaybridge.schemas.ErrorCode;
import io.delaybridge.schemas.IntakeCommand;
import io.delaybridge.schemas.IntakeOrigin;
import io.delaybridge.schemas.IntakeParser;
import io.delaybridge.schemas.SeriesHeaders;
import io.delaybridge.schemas.SeriesRecord;
import io.delaybridge.schemas.TargetPolicy;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/** Turns an intake record into a store operation, or into the reason it is refused. Pure: no I/O. */
public final class RecordTranslator {

    /**
     * Either a store operation or a rejection, never both. A schedule's envelope is encoded only when its operation is
     * asked for ({@link #op}): a record on the express path is delivered from its parts and never encoded.
     */
    public static final class Translation {
        private final String defaultId;
        private final ContractViolation rejection;
        private final String id;
        private final long dueAt;
        private final long timestamp;
        private final IntakeOrigin origin;
        private final Envelope envelope;
        private WriteOp op;

        private Translation(String defaultId, WriteOp op, ContractViolation rejection) {
            this.defaultId = defaultId;
            this.op = op;
            this.rejection = rejection;
            this.id = op == null ? null : op.id();
            this.dueAt = Long.MAX_VALUE;
            this.timestamp = WriteOp.NO_TIMESTAMP;
            this.origin = null;
            this.envelope = null;
        }

        private Translation(
                String defaultId, String id, long dueAt, long timestamp, IntakeOrigin origin, Envelope envelope) {
            this.defaultId = defaultId;
            this.rejection = null;
            this.id = id;
            this.dueAt = dueAt;
            this.timestamp = timestamp;
            this.origin = origin;
            this.envelope = envelope;
        }

        public boolean rejected() {
            return rejection != null;
        }

        public ContractViolation rejection() {
            return rejection;
        }

        /** The store operation (a schedule's envelope encoded on the first call); null if rejected. */
        public WriteOp op() {
            if (op == null && envelope != null) {
                op = new WriteOp.Schedule(id, dueAt, origin, EnvelopeCodec.encode(envelope), timestamp);
            }
            return op;
        }

        /**
         * A schedule's operation for the far tier: its intake position ({@code origin}) and due time, the envelope
         * left in the intake's log and never encoded.
         */
        public WriteOp.Schedule farOp() {
            return new WriteOp.Schedule(id, dueAt, origin, null, timestamp, true);
        }

        /** Whether this is a schedule (not a cancel, not a rejection). */
        public boolean schedule() {
            return envelope != null;
        }

        /** The id the operation is about: a schedule's or a cancel's; null if rejected. */
        public String id() {
            return id;
        }

        /** A schedule's due time (epoch ms); MAX_VALUE for a cancel or a rejection. */
        public long dueAt() {
            return dueAt;
        }

        /** A schedule's intake record timestamp. */
        public long timestamp() {
            return timestamp;
        }

        /** A schedule's intake position; null for a cancel or a rejection. */
        public IntakeOrigin origin() {
            return origin;
        }

        /** A schedule's envelope, not encoded; null for a cancel or a rejection. */
        public Envelope envelope() {
            return envelope;
        }

        /** The record's default id ({@link IntakeParser#defaultId}). */
        public String defaultId() {
            return defaultId;
        }
    }

    private final IntakeParser parser;
    private final int maxRecordBytes;
    private final long cancelMemoryMillis;

    /**
     * @param targets            the intake and deadletter topics and the targets records may name
     * @param maxDelayMillis     the longest delay a record may ask for
     * @param maxRecordBytes     the largest record taken
     * @param cancelMemoryMillis how long a cancel is remembered
     */
    public RecordTranslator(TargetPolicy targets, long maxDelayMillis, int maxRecordBytes, long cancelMemoryMillis) {
        this.parser = new IntakeParser(targets, maxDelayMillis);
        this.maxRecordBytes = maxRecordBytes;
        this.cancelMemoryMillis = cancelMemoryMillis;
    }

    public Translation translate(ConsumerRecord<byte[], byte[]> record) {
        IntakeOrigin origin = new IntakeOrigin(record.topic(), record.partition(), record.offset());
        String defaultId = IntakeParser.defaultId(record.topic(), record.partition(), record.offset());
        try {
            SeriesRecord.First series = series(record);
            IntakeCommand command =
                    series != null ? series.schedule() : parser.parse(record.headers(), record.timestamp(), defaultId);
            if (command instanceof IntakeCommand.Cancel cancel) {
                return new Translation(
                        defaultId,
                        new WriteOp.Cancel(cancel.id(), record.timestamp(), record.timestamp() - cancelMemoryMillis),
                        null);
            }
            IntakeCommand.Schedule schedule = (IntakeCommand.Schedule) command;
            long size = sizeOf(record);
            if (size > maxRecordBytes) {
                throw new ContractViolation(
                        ErrorCode.PAYLOAD_TOO_LARGE,
                        "record of " + size
                                + " bytes (key + value + headers) is larger than the " + maxRecordBytes
                                + " bytes the bridge accepts (intake.maxRecordSize)");
            }
            List<Header> userHeaders = new ArrayList<>();
            for (Header header : record.headers()) {
                if (!DelayHeaders.isControl(header.key())) {
                    userHeaders.add(header);
                }
            }
            if (series != null) {
                userHeaders.add(series.state()); // the series' definition and pending occurrence, stored with it
            }
            return new Translation(
                    defaultId,
                    schedule.id(),
                    schedule.dueAt(),
                    record.timestamp(),
                    origin,
                    new Envelope(
                            schedule.target(),
                            schedule.partition(),
                            origin.toString(),
                            record.key(),
                            record.value(),
                            userHeaders));
        } catch (ContractViolation violation) {
            return new Translation(defaultId, null, violation);
        }
    }

    /** A series record read by {@link SeriesRecord}, or null for any other record (checked by name first: cheap). */
    private SeriesRecord.First series(ConsumerRecord<byte[], byte[]> record) throws ContractViolation {
        for (Header header : record.headers()) {
            if (SeriesHeaders.NAMES.contains(header.key())) {
                return SeriesRecord.read(parser, record.headers(), writtenAt(record))
                        .orElse(null);
            }
        }
        return null;
    }

    /**
     * When a series record was written, from which its occurrences count: its timestamp; for a delay rule's record
     * ({@value DelayHeaders#RULE}), the start the rule worked out from its source record ({@value DelayHeaders#UNTIL})
     * if that is earlier. A created intake topic stamps records with the time the broker appended them, and a rule
     * that read its source late must not lose the occurrences in between: they are missed runs, as its
     * {@code missed} setting says.
     */
    static long writtenAt(ConsumerRecord<byte[], byte[]> record) {
        long timestamp = record.timestamp();
        Header until = record.headers().lastHeader(DelayHeaders.UNTIL);
        if (record.headers().lastHeader(DelayHeaders.RULE) == null || until == null || until.value() == null) {
            return timestamp;
        }
        try {
            return Math.min(timestamp, DelayText.parseInstantMillis(new String(until.value(), StandardCharsets.UTF_8)));
        } catch (IllegalArgumentException e) {
            return timestamp; // the series headers' check names it
        }
    }

    /** A record's size as the intake counts it: key + value + headers (keys and values). */
    static long sizeOf(ConsumerRecord<byte[], byte[]> record) {
        long size = Math.max(0, record.serializedKeySize()) + (long) Math.max(0, record.serializedValueSize());
        for (Header header : record.headers()) {
            size += header.key().length() + (header.value() == null ? 0 : header.value().length);
        }
        return size;
    }
}

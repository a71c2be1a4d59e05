package io.delaybridge.bridge.intake;

import io.delaybridge.bridge.store.WriteOp;
import io.delaybridge.schemas.ContractViolation;
import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.schemas.Envelope;
import io.delaybridge.schemas.EnvelopeCodec;
import io.delaybridge.schemas.ErrorCode;
import io.delaybridge.schemas.IntakeCommand;
import io.delaybridge.schemas.IntakeParser;
import io.delaybridge.schemas.TargetPolicy;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/** Turns an intake record into a store operation, or into the reason it is refused. Pure: no I/O. */
public final class RecordTranslator {

    /** Either a store operation or a rejection, never both. */
    public record Translation(WriteOp op, ContractViolation rejection) {
        public boolean rejected() {
            return rejection != null;
        }
    }

    private final IntakeParser parser;
    private final int maxRecordBytes;
    private final long cancelMemoryMillis;

    public RecordTranslator(IntakeSettings settings) {
        this.parser = new IntakeParser(
                new TargetPolicy(settings.topic(), settings.deadletterTopic(), settings.allowedTargets()),
                settings.maxDelayMillis());
        this.maxRecordBytes = settings.maxRecordBytes();
        this.cancelMemoryMillis = settings.cancelMemoryMillis();
    }

    public Translation translate(ConsumerRecord<byte[], byte[]> record) {
        String defaultId = IntakeParser.defaultId(record.topic(), record.partition(), record.offset());
        try {
            IntakeCommand command = parser.parse(record.headers(), record.timestamp(), defaultId);
            if (command instanceof IntakeCommand.Cancel cancel) {
                return new Translation(new WriteOp.Cancel(
                        cancel.id(), record.timestamp(), record.timestamp() - cancelMemoryMillis), null);
            }
            IntakeCommand.Schedule schedule = (IntakeCommand.Schedule) command;
            int size = sizeOf(record);
            if (size > maxRecordBytes) {
                throw new ContractViolation(ErrorCode.PAYLOAD_TOO_LARGE, "record of " + size
                        + " bytes (key + value + headers) is larger than the " + maxRecordBytes
                        + " bytes the bridge accepts (intake.maxRecordSize)");
            }
            String origin = Envelope.origin(record.topic(), record.partition(), record.offset());
            List<Header> userHeaders = new ArrayList<>();
            for (Header header : record.headers()) {
                if (!DelayHeaders.isControl(header.key())) {
                    userHeaders.add(header);
                }
            }
            byte[] envelope = EnvelopeCodec.encode(new Envelope(
                    schedule.target(), schedule.partition(), origin, record.key(), record.value(), userHeaders));
            return new Translation(
                    new WriteOp.Schedule(schedule.id(), schedule.dueAt(), origin, envelope, record.timestamp()), null);
        } catch (ContractViolation violation) {
            return new Translation(null, violation);
        }
    }

    private static int sizeOf(ConsumerRecord<byte[], byte[]> record) {
        long size = Math.max(0, record.serializedKeySize()) + (long) Math.max(0, record.serializedValueSize());
        for (Header header : record.headers()) {
            size += header.key().length() + (header.value() == null ? 0 : header.value().length);
        }
        return (int) Math.min(Integer.MAX_VALUE, size);
    }
}

package io.delaybridge.bridge.intake;

import io.delaybridge.bridge.express.ExpressPath;
import io.delaybridge.bridge.log.RecordTranslator;
import io.delaybridge.bridge.store.WriteOp;
import io.delaybridge.schemas.ContractViolation;
import io.delaybridge.schemas.Envelope;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;

/**
 * One poll of the intake, translated: the store operations to write, the refused records with their reasons (for the
 * deadletter topic), the offsets to commit once both are done, each partition's first offset (to read it again after
 * a failure) and the earliest due time among its schedules (for {@link OffsetCommitter}). Holds no connection.
 *
 * <p>With an {@link ExpressGate}, the schedules it admits go to {@code express} instead of {@code ops}: they are
 * checked against the store (in the same pipeline as the writes) and, if they pass, delivered from the intake. A
 * record whose default id is named in the same poll by a cancel or by a schedule with an explicit id parks (and with
 * it the rest of its partition's poll), whatever their order: only the store decides a cancel or a replacement.
 *
 * <p>A schedule that does not take the express path and that the {@link FarPolicy} sends far is written as its far
 * operation ({@link RecordTranslator.Translation#farOp}): its envelope is never encoded.
 *
 * @param express       the schedules admitted to the express path, in poll order
 * @param earliestDueAt the earliest due time among the schedules (epoch ms), MAX_VALUE if the poll has none
 * @param count         the records of the poll
 */
record IntakePoll(
        List<WriteOp> ops,
        List<ExpressRecord> express,
        List<ConsumerRecord<byte[], byte[]>> rejected,
        List<ContractViolation> reasons,
        Map<TopicPartition, OffsetAndMetadata> commit,
        Map<TopicPartition, Long> first,
        long earliestDueAt,
        int count) {

    /**
     * A schedule on the express path: its translation (the envelope, not encoded), intake partition and offset, and
     * the bytes it holds of the express buffer.
     */
    record ExpressRecord(RecordTranslator.Translation translation, int partition, long offset, long bytes)
            implements ExpressPath.Record {
        @Override
        public String id() {
            return translation.id();
        }

        @Override
        public long dueAt() {
            return translation.dueAt();
        }

        @Override
        public Envelope envelope() {
            return translation.envelope();
        }

        /** The store operation that parks it (its envelope encoded now): after a failed check or first send. */
        @Override
        public WriteOp.Schedule op() {
            return (WriteOp.Schedule) translation.op();
        }
    }

    /**
     * Translates the records of a poll in order; {@code marker} goes into the committed offsets' metadata. Schedules
     * that {@code gate} admits (if not null) go to {@code express}. {@code redisNowAtMost}: the latest time Redis'
     * clock can show, MAX_VALUE if unknown. The other schedules that {@code far} sends far ({@link FarPolicy#NONE}:
     * none) are written as far operations.
     */
    static IntakePoll translate(
            Iterable<ConsumerRecord<byte[], byte[]>> records,
            RecordTranslator translator,
            String marker,
            ExpressGate gate,
            long redisNowAtMost,
            FarPolicy far) {
        List<ConsumerRecord<byte[], byte[]>> read = new ArrayList<>();
        List<RecordTranslator.Translation> translations = new ArrayList<>();
        Set<String> named = new HashSet<>(); // ids the store must decide: cancelled or given explicitly
        for (ConsumerRecord<byte[], byte[]> record : records) {
            RecordTranslator.Translation translation = translator.translate(record);
            read.add(record);
            translations.add(translation);
            if (gate != null
                    && !translation.rejected()
                    && (!translation.schedule() || !translation.id().equals(translation.defaultId()))) {
                named.add(translation.id()); // a cancel names another record's id, an explicit id its own
            }
        }
        if (gate != null) {
            gate.beginPoll();
        }
        List<WriteOp> ops = new ArrayList<>();
        List<ExpressRecord> express = new ArrayList<>();
        List<ConsumerRecord<byte[], byte[]>> rejected = new ArrayList<>();
        List<ContractViolation> reasons = new ArrayList<>();
        Map<TopicPartition, OffsetAndMetadata> commit = new HashMap<>();
        Map<TopicPartition, Long> first = new HashMap<>();
        long earliestDueAt = Long.MAX_VALUE;
        TopicPartition partition = null; // the current run of records of one partition, and its last offset
        long lastOffset = -1;
        for (int i = 0; i < read.size(); i++) {
            ConsumerRecord<byte[], byte[]> record = read.get(i);
            if (partition == null
                    || partition.partition() != record.partition()
                    || !partition.topic().equals(record.topic())) {
                if (partition != null) {
                    commit.put(partition, new OffsetAndMetadata(lastOffset + 1, marker));
                }
                partition = new TopicPartition(record.topic(), record.partition());
                first.putIfAbsent(partition, record.offset());
            }
            lastOffset = record.offset();
            RecordTranslator.Translation translation = translations.get(i);
            if (translation.rejected()) {
                rejected.add(record);
                reasons.add(translation.rejection());
                continue;
            }
            long bytes = gate != null && translation.schedule() ? bytesOf(translation) : 0;
            if (gate != null && admit(gate, record.partition(), translation, bytes, named, redisNowAtMost)) {
                express.add(new ExpressRecord(translation, record.partition(), record.offset(), bytes));
            } else if (translation.schedule()
                    && far.far(record.partition(), record.offset(), translation.timestamp(), translation.dueAt())) {
                ops.add(translation.farOp());
            } else {
                ops.add(translation.op());
            }
            earliestDueAt = Math.min(earliestDueAt, translation.dueAt());
        }
        if (partition != null) {
            commit.put(partition, new OffsetAndMetadata(lastOffset + 1, marker));
        }
        return new IntakePoll(ops, express, rejected, reasons, commit, first, earliestDueAt, read.size());
    }

    private static boolean admit(
            ExpressGate gate,
            int partition,
            RecordTranslator.Translation translation,
            long bytes,
            Set<String> named,
            long redisNowAtMost) {
        if (!translation.schedule()) {
            return false; // a cancel: written to the store, so the checks after it in the pipeline see it
        }
        if (named.contains(translation.defaultId())) {
            gate.park(partition); // a cancel or an explicit id names this record's id: only the store decides
            return false;
        }
        return gate.admit(
                partition, translation.id(), translation.defaultId(), translation.dueAt(), bytes, redisNowAtMost);
    }

    /** What an express record holds of the heap, roughly: its key, value, headers, id and the objects around them. */
    private static long bytesOf(RecordTranslator.Translation translation) {
        Envelope envelope = translation.envelope();
        long bytes = 2L
                        * (translation.id().length()
                                + envelope.origin().length()
                                + envelope.target().length())
                + 256;
        bytes += envelope.key() == null ? 0 : envelope.key().length;
        bytes += envelope.value() == null ? 0 : envelope.value().length;
        for (Header header : envelope.headers()) {
            bytes += 2L * header.key().length() + (header.value() == null ? 0 : header.value().length) + 32;
        }
        return bytes;
    }

    /** Whether the poll holds a refused record: its deadletter copy is written before the commit. */
    boolean refused() {
        return !rejected.isEmpty();
    }
}

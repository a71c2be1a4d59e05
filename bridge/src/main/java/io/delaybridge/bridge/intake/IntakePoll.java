package io.delaybridge.bridge.intake;

import io.delaybridge.bridge.store.WriteOp;
import io.delaybridge.schemas.ContractViolation;
import io.delaybridge.schemas.IntakeParser;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * One poll of the intake, translated: the store operations to write, the refused records with their reasons (for the
 * deadletter topic), the offsets to commit once both are done, each partition's first offset (to read it again after
 * a failure) and the earliest due time among its schedules (for {@link CommitPacer}). Holds no connection.
 *
 * <p>With an {@link ExpressGate}, the schedules it admits go to {@code express} instead of {@code ops}: they are
 * checked against the store (in the same pipeline as the writes) and, if they pass, delivered from the intake. A
 * record whose default id is named in the same poll by a cancel or by a schedule with an explicit id parks (and with
 * it the rest of its partition's poll), whatever their order: only the store decides a cancel or a replacement.
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
     * A schedule on the express path: its operation, intake partition, and the bytes it holds of the express buffer.
     */
    record ExpressRecord(WriteOp.Schedule op, int partition, long bytes) {}

    /** Translates the records of a poll in order; {@code marker} goes into the committed offsets' metadata. */
    static IntakePoll translate(
            Iterable<ConsumerRecord<byte[], byte[]>> records, RecordTranslator translator, String marker) {
        return translate(records, translator, marker, null, Long.MAX_VALUE);
    }

    /**
     * As {@link #translate(Iterable, RecordTranslator, String)}; schedules that {@code gate} admits (if not null)
     * go to {@code express}. {@code redisNowAtMost}: the latest time Redis' clock can show, MAX_VALUE if unknown.
     */
    static IntakePoll translate(Iterable<ConsumerRecord<byte[], byte[]>> records, RecordTranslator translator,
            String marker, ExpressGate gate, long redisNowAtMost) {
        List<ConsumerRecord<byte[], byte[]>> read = new ArrayList<>();
        List<RecordTranslator.Translation> translations = new ArrayList<>();
        Set<String> named = new HashSet<>(); // ids the store must decide: cancelled or given explicitly
        for (ConsumerRecord<byte[], byte[]> record : records) {
            RecordTranslator.Translation translation = translator.translate(record);
            read.add(record);
            translations.add(translation);
            if (gate != null && !translation.rejected() && (translation.op() instanceof WriteOp.Cancel
                    || !translation.op().id().equals(defaultId(record)))) {
                named.add(translation.op().id());
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
        int count = 0;
        for (int i = 0; i < read.size(); i++) {
            ConsumerRecord<byte[], byte[]> record = read.get(i);
            count++;
            TopicPartition partition = new TopicPartition(record.topic(), record.partition());
            first.putIfAbsent(partition, record.offset());
            commit.put(partition, new OffsetAndMetadata(record.offset() + 1, marker));
            RecordTranslator.Translation translation = translations.get(i);
            if (translation.rejected()) {
                rejected.add(record);
                reasons.add(translation.rejection());
            } else {
                if (gate != null && admit(gate, record, translation.op(), named, redisNowAtMost)) {
                    WriteOp.Schedule schedule = (WriteOp.Schedule) translation.op();
                    express.add(new ExpressRecord(schedule, record.partition(), bytesOf(schedule)));
                } else {
                    ops.add(translation.op());
                }
                if (translation.op() instanceof WriteOp.Schedule schedule) {
                    earliestDueAt = Math.min(earliestDueAt, schedule.dueAt());
                }
            }
        }
        return new IntakePoll(ops, express, rejected, reasons, commit, first, earliestDueAt, count);
    }

    private static boolean admit(ExpressGate gate, ConsumerRecord<byte[], byte[]> record, WriteOp op,
            Set<String> named, long redisNowAtMost) {
        String defaultId = defaultId(record);
        if (op instanceof WriteOp.Schedule && named.contains(defaultId)) {
            gate.park(record.partition());
            return false;
        }
        return gate.admit(record.partition(), op, defaultId,
                op instanceof WriteOp.Schedule schedule ? bytesOf(schedule) : 0, redisNowAtMost);
    }

    private static String defaultId(ConsumerRecord<byte[], byte[]> record) {
        return IntakeParser.defaultId(record.topic(), record.partition(), record.offset());
    }

    /** What an express record holds of the heap, roughly: its envelope, id and the objects around them. */
    private static long bytesOf(WriteOp.Schedule schedule) {
        return schedule.envelope().length + 2L * schedule.id().length() + 256;
    }

    /** Whether the poll holds a refused record: its deadletter copy is written before the commit. */
    boolean refused() {
        return !rejected.isEmpty();
    }
}

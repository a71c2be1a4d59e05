package io.delaybridge.bridge.intake;

import io.delaybridge.bridge.store.WriteOp;
import io.delaybridge.schemas.ContractViolation;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * One poll of the intake, translated: the store operations to write, the refused records with their reasons (for the
 * deadletter topic), the offsets to commit once both are done, each partition's first offset (to read it again after
 * a failure) and the earliest due time among its schedules (for {@link CommitPacer}). Holds no connection.
 *
 * @param earliestDueAt the earliest due time among the schedules (epoch ms), MAX_VALUE if the poll has none
 * @param count         the records of the poll
 */
record IntakePoll(
        List<WriteOp> ops,
        List<ConsumerRecord<byte[], byte[]>> rejected,
        List<ContractViolation> reasons,
        Map<TopicPartition, OffsetAndMetadata> commit,
        Map<TopicPartition, Long> first,
        long earliestDueAt,
        int count) {

    /** Translates the records of a poll in order; {@code marker} goes into the committed offsets' metadata. */
    static IntakePoll translate(
            Iterable<ConsumerRecord<byte[], byte[]>> records, RecordTranslator translator, String marker) {
        List<WriteOp> ops = new ArrayList<>();
        List<ConsumerRecord<byte[], byte[]>> rejected = new ArrayList<>();
        List<ContractViolation> reasons = new ArrayList<>();
        Map<TopicPartition, OffsetAndMetadata> commit = new HashMap<>();
        Map<TopicPartition, Long> first = new HashMap<>();
        long earliestDueAt = Long.MAX_VALUE;
        int count = 0;
        for (ConsumerRecord<byte[], byte[]> record : records) {
            count++;
            TopicPartition partition = new TopicPartition(record.topic(), record.partition());
            first.putIfAbsent(partition, record.offset());
            commit.put(partition, new OffsetAndMetadata(record.offset() + 1, marker));
            RecordTranslator.Translation translation = translator.translate(record);
            if (translation.rejected()) {
                rejected.add(record);
                reasons.add(translation.rejection());
            } else {
                ops.add(translation.op());
                if (translation.op() instanceof WriteOp.Schedule schedule) {
                    earliestDueAt = Math.min(earliestDueAt, schedule.dueAt());
                }
            }
        }
        return new IntakePoll(ops, rejected, reasons, commit, first, earliestDueAt, count);
    }

    /** Whether the poll holds a refused record: its deadletter copy is written before the commit. */
    boolean refused() {
        return !rejected.isEmpty();
    }
}

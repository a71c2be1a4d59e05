package io.delaybridge.bridge.thaw;

import io.delaybridge.bridge.delivery.DeadletterMeters;
import io.delaybridge.bridge.log.OffsetReader;
import io.delaybridge.bridge.log.RecordTranslator;
import io.delaybridge.bridge.log.RecordTranslator.Translation;
import io.delaybridge.bridge.log.RefusedRecords;
import io.delaybridge.bridge.store.FarHour;
import io.delaybridge.bridge.store.WriteOp;
import io.delaybridge.schemas.ContractViolation;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.KafkaException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The thaw's "translate again" step: turns one fetched slice of far records back into the schedules to store hot, each
 * with the far slots it marks thawed, translating each record as the intake does ({@link RecordTranslator}). A record
 * the settings now refuse goes to the deadletter topic with its reason through the intake's writer
 * ({@link RefusedRecords}) before the slice is stored; one that is not a schedule is logged and skipped.
 */
final class SliceTranslator {

    private static final Logger LOG = LoggerFactory.getLogger(SliceTranslator.class);

    private final RecordTranslator translator;
    private final RefusedRecords deadletter;
    private final DeadletterMeters deadletters;

    SliceTranslator(RecordTranslator translator, RefusedRecords deadletter, DeadletterMeters deadletters) {
        this.translator = translator;
        this.deadletter = deadletter;
        this.deadletters = deadletters;
    }

    /** What a slice stores hot: its schedules and, for each, the slots of its far entries. */
    record Schedules(List<WriteOp.Schedule> ops, List<List<FarHour.Slot>> slots) {}

    /**
     * Translates {@code records} (read for {@code slots} of a far hour of {@code shard}); refusals are deadlettered
     * (and waited for) before this returns.
     */
    Schedules translate(int shard, List<ConsumerRecord<byte[], byte[]>> records, List<FarHour.Slot> slots) {
        Map<OffsetReader.Position, List<FarHour.Slot>> slotsOf = new HashMap<>();
        for (FarHour.Slot slot : slots) {
            slotsOf.computeIfAbsent(OffsetReader.Position.of(slot.entry()), p -> new ArrayList<>())
                    .add(slot);
        }
        List<WriteOp.Schedule> ops = new ArrayList<>(records.size());
        List<List<FarHour.Slot>> opSlots = new ArrayList<>(records.size());
        List<ConsumerRecord<byte[], byte[]>> refused = new ArrayList<>();
        List<ContractViolation> reasons = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> record : records) {
            List<FarHour.Slot> recordSlots =
                    slotsOf.remove(new OffsetReader.Position(record.partition(), record.offset()));
            if (recordSlots == null) {
                continue; // read twice for one record's entries: the first carries all its slots
            }
            Translation translation = translator.translate(record);
            if (translation.rejected()) {
                refused.add(record);
                reasons.add(translation.rejection());
            } else if (translation.schedule()) {
                ops.add((WriteOp.Schedule) translation.op());
                opSlots.add(recordSlots);
            } else {
                LOG.warn(
                        "The far entry of shard {} at intake {}-{}@{} is not a schedule but a {}: nothing to thaw",
                        shard,
                        record.topic(),
                        record.partition(),
                        record.offset(),
                        translation.op().getClass().getSimpleName());
            }
        }
        deadletter(refused, reasons);
        return new Schedules(ops, opSlots);
    }

    /**
     * Writes far records the settings now refuse to the deadletter topic with their reason, through the intake's
     * {@link RefusedRecords}, and waits for it.
     */
    private void deadletter(List<ConsumerRecord<byte[], byte[]>> refused, List<ContractViolation> reasons) {
        if (refused.isEmpty()) {
            return;
        }
        for (int i = 0; i < refused.size(); i++) {
            ConsumerRecord<byte[], byte[]> record = refused.get(i);
            ContractViolation reason = reasons.get(i);
            LOG.warn(
                    "Far record {}-{}@{} is refused now (the settings changed since it was read): {} {}",
                    record.topic(),
                    record.partition(),
                    record.offset(),
                    reason.code(),
                    reason.getMessage());
        }
        try {
            deadletter.write(refused, reasons);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KafkaException("interrupted while deadlettering refused far records", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new KafkaException("the deadletter topic did not take refused far records: " + e, e);
        }
        reasons.forEach(reason -> deadletters.mark(reason.code()));
    }
}

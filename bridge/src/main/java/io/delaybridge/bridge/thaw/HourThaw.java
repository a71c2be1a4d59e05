package io.delaybridge.bridge.thaw;

import io.delaybridge.bridge.delivery.DeadletterMeters;
import io.delaybridge.bridge.log.FetchPlan;
import io.delaybridge.bridge.log.IntakeLog;
import io.delaybridge.bridge.log.OffsetReader;
import io.delaybridge.bridge.log.RecordTranslator;
import io.delaybridge.bridge.log.RecordTranslator.Translation;
import io.delaybridge.bridge.log.RefusedRecords;
import io.delaybridge.bridge.store.FarEntry;
import io.delaybridge.bridge.store.FarHour;
import io.delaybridge.bridge.store.FarStore;
import io.delaybridge.bridge.store.WriteOp;
import io.delaybridge.bridge.time.Time;
import io.delaybridge.schemas.ContractViolation;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.KafkaException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Thaws one far hour of a shard: reads its entries, fetches their records from the intake in slices
 * ({@link OffsetReader}), translates each as the intake does ({@link RecordTranslator}) and stores the slice hot
 * ({@link FarStore#thaw}: through the intake's write pipeline), which marks their entries thawed in the same step; once every slice is stored, the hour
 * goes ({@link FarStore#farThawed}), or, if entries were appended meanwhile, they are read and thawed too. A record the settings now refuse goes to the deadletter
 * topic with its reason through the intake's writer ({@link RefusedRecords}); a record gone from the log is reported lost
 * ({@link ThawMetrics#lost}). A failure leaves the hour in the index: it is thawed again, and what the failed thaw stored hot (and the
 * pump may have delivered since) is not stored again.
 */
final class HourThaw {

    private static final Logger LOG = LoggerFactory.getLogger(HourThaw.class);
    private static final long SEND_TIMEOUT_SECONDS = 30;
    /** Slices stored in Redis while the next is fetched: enough to keep both busy, few enough to bound the heap. */
    private static final int MAX_SLICES_STORING = 3;

    private final FarStore far;
    private final OffsetReader reader;
    private final RecordTranslator translator;
    private final RefusedRecords deadletter;
    private final DeadletterMeters deadletters;
    private final ThawMetrics metrics;
    private final int maxRecords;
    private final long maxDelayMillis;
    private final int aheadPerSecond;
    /** When the records thawed ahead so far may all have gone at {@link #aheadPerSecond} (monotonic ns). */
    private long paceNanos;

    private final Time time;

    /**
     * @param pace   its {@code maxRecords}: the most entries fetched and stored in one thaw call; its {@code
     *               aheadPerSecond}: the pace ahead of an hour
     * @param intake its deadletter topic, and its longest delay: remembered drops older than an hour's start minus
     *                       this are forgotten when the hour goes
     */
    HourThaw(
            FarStore far,
            OffsetReader reader,
            RecordTranslator translator,
            ThawOutput output,
            ThawPace pace,
            IntakeLog intake,
            Time time) {
        this.time = time;
        this.paceNanos = time.nanoseconds();
        this.far = far;
        this.reader = reader;
        this.translator = translator;
        this.deadletter = new RefusedRecords(output.producer(), intake.deadletterTopic(), SEND_TIMEOUT_SECONDS);
        this.deadletters = output.deadletters();
        this.metrics = output.metrics();
        this.maxRecords = pace.maxRecords();
        this.maxDelayMillis = intake.maxDelayMillis();
        this.aheadPerSecond = pace.aheadPerSecond();
    }

    /**
     * Thaws {@code hour} of {@code shard} under {@code epoch}; returns whether the hour is gone (false: the loop
     * stopped first, and the hour stays). Store exceptions (fenced, unavailable) and Kafka's (not answered in time: the
     * hour is thawed again later, nothing is lost) pass. Paced at {@code aheadPerSecond} records a second ({@code intake.thawAheadRate}; 0: no limit) until
     * {@code startNanos} (the hour's start on this host's monotonic clock), at full speed from then on: ahead of its
     * hour a thaw has time, and at full speed it takes Redis from the records being delivered now.
     */
    boolean thaw(int shard, long epoch, long hour, long startNanos, BooleanSupplier running) {
        int from = 0;
        while (true) {
            FarHour read = far.readFar(shard, hour, from);
            List<FarEntry> entries = read.entries();
            List<FarHour.Slot> slots = read.slots();
            // the next slice is fetched from the intake while the ones before it are stored in Redis: the thaw's
            // rate is its round trips', not its CPU's. The store calls go through the intake's write pipeline, which
            // dispatches them in order (a NOSCRIPT re-run included, else the slice fails) behind its replica wait, so
            // they apply as one after the other would; all are done before the hour goes.
            Deque<CompletableFuture<Void>> storing = new ArrayDeque<>();
            try {
                int i = 0;
                while (i < entries.size()) {
                    if (!running.getAsBoolean()) {
                        return false;
                    }
                    List<FarHour.Slot> sliceSlots = slots.subList(i, FetchPlan.sliceEnd(entries, i, maxRecords));
                    List<OffsetReader.Position> slice = sliceSlots.stream()
                            .map(slot -> OffsetReader.Position.of(slot.entry()))
                            .toList();
                    if (!pace(slice.size(), startNanos, running)) {
                        return false;
                    }
                    OffsetReader.Fetched fetched = reader.fetch(slice);
                    if (!fetched.lost().isEmpty()) {
                        metrics.lost(shard, hour, fetched.lost());
                    }
                    storing.add(store(shard, epoch, hour, fetched.records(), sliceSlots.subList(0, fetched.covered())));
                    while (storing.size() > MAX_SLICES_STORING) {
                        join(storing.poll());
                    }
                    i += fetched.covered();
                }
                while (!storing.isEmpty()) {
                    join(storing.poll());
                }
            } finally {
                storing.forEach(f -> f.cancel(false)); // a failure: the hour stays and is thawed again
            }
            long left = far.farThawed(shard, epoch, hour, read.length(), hour * FarEntry.HOUR_MILLIS - maxDelayMillis);
            if (left == 0) {
                return true;
            }
            from = read.length(); // entries were appended since the read: thaw them too
        }
    }

    /**
     * Waits until {@code records} more may be thawed ahead of the hour's start ({@code startNanos}); returns false if
     * the loop stopped meanwhile. Unused time is not saved up for more than a second.
     */
    private boolean pace(int records, long startNanos, BooleanSupplier running) {
        long now = time.nanoseconds();
        if (aheadPerSecond <= 0 || now - startNanos >= 0) {
            return true; // no limit, or the hour has begun: behind, catch up at full speed
        }
        paceNanos = Math.max(paceNanos, now - TimeUnit.SECONDS.toNanos(1));
        paceNanos += records * TimeUnit.SECONDS.toNanos(1) / aheadPerSecond;
        while (running.getAsBoolean()) {
            long wait = Math.min(paceNanos, startNanos) - time.nanoseconds();
            if (wait <= 0) {
                return true;
            }
            time.sleep((Math.min(wait, TimeUnit.MILLISECONDS.toNanos(100)) + 999_999) / 1_000_000);
        }
        return false;
    }

    private static void join(CompletableFuture<Void> stored) {
        try {
            stored.join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException cause ? cause : e;
        }
    }

    /**
     * Translates {@code records} (read for {@code slots} of {@code hour}) and starts storing them hot, each marking
     * its slots thawed; refusals are deadlettered first. The future completes once Redis stored them.
     */
    private CompletableFuture<Void> store(
            int shard, long epoch, long hour, List<ConsumerRecord<byte[], byte[]>> records, List<FarHour.Slot> slots) {
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
        if (ops.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        return far.thaw(shard, epoch, hour, ops, opSlots).thenAccept(results -> metrics.thawed.mark(ops.size()));
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

package io.delaybridge.bridge.thaw;

import io.delaybridge.bridge.log.FetchPlan;
import io.delaybridge.bridge.log.IntakeLog;
import io.delaybridge.bridge.log.OffsetReader;
import io.delaybridge.bridge.log.RecordTranslator;
import io.delaybridge.bridge.log.RefusedRecords;
import io.delaybridge.bridge.store.FarEntry;
import io.delaybridge.bridge.store.FarHour;
import io.delaybridge.bridge.store.FarStore;
import io.delaybridge.bridge.time.Time;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;

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

    private static final long SEND_TIMEOUT_SECONDS = 30;
    /** Slices stored in Redis while the next is fetched: enough to keep both busy, few enough to bound the heap. */
    private static final int MAX_SLICES_STORING = 3;

    private final FarStore far;
    private final OffsetReader reader;
    private final SliceTranslator translator;
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
        this.translator = new SliceTranslator(
                translator,
                new RefusedRecords(output.producer(), intake.deadletterTopic(), SEND_TIMEOUT_SECONDS),
                output.deadletters());
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
        SliceTranslator.Schedules schedules = translator.translate(shard, records, slots);
        if (schedules.ops().isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        return far.thaw(shard, epoch, hour, schedules.ops(), schedules.slots())
                .thenAccept(results -> metrics.thawed.mark(schedules.ops().size()));
    }
}

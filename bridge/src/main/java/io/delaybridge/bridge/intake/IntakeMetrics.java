package io.delaybridge.bridge.intake;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.Histogram;
import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import io.delaybridge.bridge.delivery.DeadletterMeters;
import io.delaybridge.bridge.express.ExpressPath;
import io.delaybridge.bridge.store.WriteOp;
import io.delaybridge.bridge.store.WriteResult;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntSupplier;

/**
 * The intake's meters: records read, stored, replaced, cancelled and refused; batches stored, offset commits; records
 * delivered by the express path ({@code delay.intake.express}), written to the store ({@code delay.intake.parked}),
 * and express candidates that parked after all ({@code delay.intake.express-fallback}: the store's check, or a failed
 * first send); records written to the far tier ({@code delay.intake.far}, also counted as parked); the gauges
 * {@code delay.intake.express-buffer} (express records held in memory) and {@code delay.far.enabled} (1 while records
 * may go far: {@link FarPolicy#enabled}). Express deliveries
 * also count in the pump's {@code delay.delivered} and {@code delay.lateness-ms}: those cover both paths.
 */
public final class IntakeMetrics implements ExpressPath.Meters {

    final Meter read;
    final Meter writeBatch;
    final Meter commits;
    /** Partitions found behind in the store (a Redis fail-over lost acknowledged writes), and the records read again. */
    final Meter storeGaps;

    final Meter gapRecords;
    final Meter express;
    final Meter parked;
    final Meter expressFallback;
    final Meter far;
    /** Exactly once: express records read again that a committed transaction had delivered (not sent again). */
    final Meter alreadyDelivered;
    /** Shared with the pump: {@code delay.delivered} and {@code delay.lateness-ms} count both paths. */
    final Meter delivered;

    final Histogram lateness;
    private final MetricRegistry registry;
    private final Map<WriteResult, Meter> results = new EnumMap<>(WriteResult.class);
    final DeadletterMeters deadlettered;

    public IntakeMetrics(MetricRegistry registry, DeadletterMeters deadlettered) {
        this.deadlettered = deadlettered;
        read = registry.meter("delay.intake.read");
        writeBatch = registry.meter("delay.intake.batches");
        commits = registry.meter("delay.intake.commits");
        storeGaps = registry.meter("delay.store.gaps");
        gapRecords = registry.meter("delay.store.gap-records");
        express = registry.meter("delay.intake.express");
        parked = registry.meter("delay.intake.parked");
        expressFallback = registry.meter("delay.intake.express-fallback");
        far = registry.meter("delay.intake.far");
        alreadyDelivered = registry.meter("delay.already-delivered");
        delivered = registry.meter("delay.delivered");
        lateness = registry.histogram("delay.lateness-ms");
        this.registry = registry;
        results.put(WriteResult.STORED, registry.meter("delay.scheduled"));
        results.put(WriteResult.REPLACED, registry.meter("delay.rescheduled"));
        results.put(WriteResult.DUPLICATE, registry.meter("delay.intake.duplicates"));
        results.put(WriteResult.CANCELLED, registry.meter("delay.cancelled"));
        results.put(WriteResult.NOT_FOUND, registry.meter("delay.cancel-not-found"));
        results.put(WriteResult.ALREADY_CANCELLED, registry.meter("delay.cancelled-before-scheduled"));
        results.put(WriteResult.SUPERSEDED, registry.meter("delay.superseded"));
    }

    /** Registers the gauge of the express records held in memory. */
    void expressBuffer(IntSupplier held) {
        registry.gauge("delay.intake.express-buffer", () -> (Gauge<Integer>) held::getAsInt);
    }

    /** Registers the gauge of the far tier's state: 1 while records may go far, else 0. */
    public void farTier(FarPolicy policy) {
        registry.gauge("delay.far.enabled", () -> (Gauge<Integer>) () -> policy.enabled() ? 1 : 0);
    }

    /** A written poll was stored: its records, their results, the refused ones, the parked and the far ones. */
    void stored(IntakePoll poll, List<WriteResult> written) {
        parked.mark(poll.ops().size());
        long farOps = poll.ops().stream()
                .filter(op -> op instanceof WriteOp.Schedule schedule && schedule.far())
                .count();
        if (farOps > 0) {
            far.mark(farOps);
        }
        written.forEach(this::result);
        poll.reasons().forEach(reason -> deadlettered.mark(reason.code()));
        read.mark(poll.count());
        writeBatch.mark();
    }

    void result(WriteResult result) {
        results.get(result).mark();
    }

    @Override
    public void delivered(long latenessMillis) {
        express.mark();
        delivered.mark();
        lateness.update(latenessMillis);
    }

    @Override
    public void fellBack() {
        expressFallback.mark();
    }

    @Override
    public void alreadyDelivered() {
        alreadyDelivered.mark();
    }

    @Override
    public void parked(List<WriteResult> written) {
        parked.mark();
        written.forEach(this::result);
    }
}

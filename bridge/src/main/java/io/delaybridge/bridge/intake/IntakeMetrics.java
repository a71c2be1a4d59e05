package io.delaybridge.bridge.intake;

import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import io.delaybridge.bridge.delivery.DeadletterMeters;
import io.delaybridge.bridge.store.WriteResult;
import java.util.EnumMap;
import java.util.Map;

/** The intake's meters: records read, stored, replaced, cancelled and refused; batches stored, offset commits. */
public final class IntakeMetrics {

    final Meter read;
    final Meter writeBatch;
    final Meter commits;
    /** Partitions found behind in the store (a Redis fail-over lost acknowledged writes), and the records read again. */
    final Meter storeGaps;
    final Meter gapRecords;
    private final Map<WriteResult, Meter> results = new EnumMap<>(WriteResult.class);
    final DeadletterMeters deadlettered;

    public IntakeMetrics(MetricRegistry registry, DeadletterMeters deadlettered) {
        this.deadlettered = deadlettered;
        read = registry.meter("delay.intake.read");
        writeBatch = registry.meter("delay.intake.batches");
        commits = registry.meter("delay.intake.commits");
        storeGaps = registry.meter("delay.store.gaps");
        gapRecords = registry.meter("delay.store.gap-records");
        results.put(WriteResult.STORED, registry.meter("delay.scheduled"));
        results.put(WriteResult.REPLACED, registry.meter("delay.rescheduled"));
        results.put(WriteResult.DUPLICATE, registry.meter("delay.intake.duplicates"));
        results.put(WriteResult.CANCELLED, registry.meter("delay.cancelled"));
        results.put(WriteResult.NOT_FOUND, registry.meter("delay.cancel-not-found"));
        results.put(WriteResult.ALREADY_CANCELLED, registry.meter("delay.cancelled-before-scheduled"));
        results.put(WriteResult.SUPERSEDED, registry.meter("delay.superseded"));
    }

    void result(WriteResult result) {
        results.get(result).mark();
    }
}

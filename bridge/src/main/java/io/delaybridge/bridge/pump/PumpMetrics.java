package io.delaybridge.bridge.pump;

import com.codahale.metrics.Histogram;
import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import io.delaybridge.bridge.delivery.DeadletterMeters;

/** The pump's meters: what was delivered, retried and deadlettered, and how late; and what became of series. */
public final class PumpMetrics {

    final Meter delivered;
    final Meter retried;
    final Meter reclaimed;
    /** Messages whose ack the store refused: a newer owner holds the shard (this instance was a zombie). */
    final Meter acksFenced;
    /**
     * Messages found delivered by a committed transaction (exactly once): acked instead of sent again, after a crash
     * or a lost answer.
     */
    final Meter alreadyDelivered;

    final Histogram lateness;
    final Histogram claimBatch;
    final DeadletterMeters deadlettered;
    final SeriesMeters series;

    public PumpMetrics(MetricRegistry registry, DeadletterMeters deadlettered) {
        this.deadlettered = deadlettered;
        delivered = registry.meter("delay.delivered");
        retried = registry.meter("delay.retried");
        reclaimed = registry.meter("delay.reclaimed");
        acksFenced = registry.meter("delay.acks-fenced");
        alreadyDelivered = registry.meter("delay.already-delivered");
        lateness = registry.histogram("delay.lateness-ms");
        claimBatch = registry.histogram("delay.claim-batch-size");
        series = new SeriesMeters(registry);
    }
}

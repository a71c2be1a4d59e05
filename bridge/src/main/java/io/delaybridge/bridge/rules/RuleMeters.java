package io.delaybridge.bridge.rules;

import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;

/**
 * One rule's meters: {@code delay.rules.<name>.scheduled}, {@code .cancelled} (cancel records written to the intake)
 * and {@code .rejected} (source records sent to the deadletter topic). Counted when the record is handed to the
 * transaction; a transaction aborted by a crash is counted again when its records are processed once more.
 */
public final class RuleMeters {

    public static final String PREFIX = "delay.rules.";

    final Meter scheduled;
    final Meter cancelled;
    final Meter rejected;

    public RuleMeters(MetricRegistry registry, String rule) {
        scheduled = registry.meter(PREFIX + rule + ".scheduled");
        cancelled = registry.meter(PREFIX + rule + ".cancelled");
        rejected = registry.meter(PREFIX + rule + ".rejected");
    }

    public long scheduled() {
        return scheduled.getCount();
    }

    public long cancelled() {
        return cancelled.getCount();
    }

    public long rejected() {
        return rejected.getCount();
    }
}

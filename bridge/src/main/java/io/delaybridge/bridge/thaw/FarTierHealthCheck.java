package io.delaybridge.bridge.thaw;

import com.codahale.metrics.health.HealthCheck;
import java.util.List;
import java.util.function.Supplier;

/**
 * {@code far-tier}: unhealthy, until the bridge restarts, once far records were found gone from the intake's log
 * before they were thawed (naming the partitions and offsets); healthy otherwise. Its message says whether the tier is
 * on, and if not why (the intake's retention, or {@code intake.hotWindow} off: then every record is stored in Redis,
 * which costs memory, not correctness; the gauge {@code delay.far.enabled} tells alerts), and whether the thaw is
 * behind (a backlog after an outage, caught up oldest hour first).
 */
public final class FarTierHealthCheck extends HealthCheck {

    private final Supplier<String> state;
    private final ThawMetrics metrics;

    /** @param state the far tier's state in one line (the intake's {@code FarPolicy#state}) */
    public FarTierHealthCheck(Supplier<String> state, ThawMetrics metrics) {
        this.state = state;
        this.metrics = metrics;
    }

    @Override
    protected Result check() {
        long behind = metrics.behindMillis();
        String timing = state.get() + "; "
                + (behind > 0 ? "thaw behind by " + behind + " ms (catching up, oldest hour first)" : "thaw on time");
        if (metrics.anyLost()) {
            List<String> lost = metrics.lostOffsets();
            return Result.builder()
                    .unhealthy()
                    .withMessage("far records were deleted from the intake (retention or an operator) before they"
                            + " were thawed and will not be delivered: " + String.join("; ", lost)
                            + " (the log says which; this stays until restart); " + timing)
                    .withDetail("lost", lost)
                    .withDetail("behindMillis", behind)
                    .build();
        }
        return Result.builder()
                .healthy()
                .withMessage(timing)
                .withDetail("behindMillis", behind)
                .build();
    }
}

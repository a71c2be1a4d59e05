package io.delaybridge.bridge.thaw;

import com.codahale.metrics.health.HealthCheck;
import java.util.List;

/**
 * {@code far-tier}: unhealthy, until the bridge restarts, once far records were found gone from the intake's log
 * before they were thawed (naming the partitions and offsets); healthy otherwise, saying whether the thaw is behind
 * (a backlog after an outage, caught up oldest hour first).
 */
public final class FarTierHealthCheck extends HealthCheck {

    private final ThawMetrics metrics;

    public FarTierHealthCheck(ThawMetrics metrics) {
        this.metrics = metrics;
    }

    @Override
    protected Result check() {
        long behind = metrics.behindMillis();
        String timing =
                behind > 0 ? "thaw behind by " + behind + " ms (catching up, oldest hour first)" : "thaw on time";
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

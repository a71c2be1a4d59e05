package io.delaybridge.bridge.admin;

import com.codahale.metrics.health.HealthCheck;
import io.delaybridge.bridge.intake.IntakeLoop;
import io.delaybridge.bridge.pump.Pump;
import io.delaybridge.bridge.pump.PumpPauses;

/**
 * Healthy while the intake loop runs; reports the shards pumped here, whether the pump (or single shards) is paused,
 * and what is in flight. A deliberate pause is reported, not counted as unhealthy: {@code pump-lag} turns unhealthy
 * when a paused shard's messages become overdue for too long.
 */
public final class PipelineHealthCheck extends HealthCheck {

    private final IntakeLoop intake;
    private final Pump pump;

    public PipelineHealthCheck(IntakeLoop intake, Pump pump) {
        this.intake = intake;
        this.pump = pump;
    }

    @Override
    protected Result check() {
        if (intake.stopReason() != null) {
            return Result.unhealthy(intake.stopReason());
        }
        if (intake.storeLoss() != null) {
            return Result.unhealthy(intake.storeLoss());
        }
        if (!intake.isRunning()) {
            return Result.unhealthy("the intake consumer has stopped; see the log for the error that stopped it");
        }
        PumpPauses pauses = pump.pauses();
        String paused = pauses.paused()
                ? " (pump paused: all shards)"
                : pauses.pausedShards().isEmpty() ? "" : " (paused shards " + pauses.pausedShards() + ")";
        return Result.builder()
                .healthy()
                .withMessage(
                        "intake running; pumping shards %s%s; %d in flight",
                        pump.ownedShards(), paused, pump.inFlight())
                .withDetail("paused", pauses.paused())
                .withDetail("pausedShards", pauses.pausedShards())
                .build();
    }
}

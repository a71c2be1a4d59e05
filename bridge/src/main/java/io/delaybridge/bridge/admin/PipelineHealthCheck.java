package io.delaybridge.bridge.admin;

import com.codahale.metrics.health.HealthCheck;
import io.delaybridge.bridge.intake.IntakeLoop;
import io.delaybridge.bridge.pump.Pump;

/** Healthy while the intake loop runs; reports the shards pumped here and what is in flight. */
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
        if (!intake.isRunning()) {
            return Result.unhealthy("the intake consumer has stopped; see the log for the error that stopped it");
        }
        return Result.healthy("intake running; pumping shards %s%s; %d in flight", pump.ownedShards(),
                pump.paused() ? " (paused)" : "", pump.inFlight());
    }
}

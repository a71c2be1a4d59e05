package io.delaybridge.bridge.admin;

import com.codahale.metrics.health.HealthCheck;
import java.util.function.Supplier;

/**
 * Says whether the far tier is on, and if not why (the intake's retention, or {@code intake.hotWindow} off), on
 * {@code /healthcheck} and the status page. Always healthy: with the far tier off every record is stored in Redis as
 * before, which costs memory, not correctness; the gauge {@code delay.far.enabled} tells it to alerts.
 */
public final class FarTierHealthCheck extends HealthCheck {

    private final Supplier<String> state;

    /** @param state the far tier's state in one line ({@code FarPolicy#state}) */
    public FarTierHealthCheck(Supplier<String> state) {
        this.state = state;
    }

    @Override
    protected Result check() {
        return Result.healthy(state.get());
    }
}

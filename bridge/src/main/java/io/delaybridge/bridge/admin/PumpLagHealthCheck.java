package io.delaybridge.bridge.admin;

import com.codahale.metrics.health.HealthCheck;

/**
 * Unhealthy when some pending message has been due for longer than {@code maxLagMillis}: no pump releases it (the
 * shard has no owner, its owner is stuck or paused, or the target refuses sends). Looks at every shard, not only
 * those pumped here, so an orphaned shard shows up on every instance.
 */
public final class PumpLagHealthCheck extends HealthCheck {

    private final ShardReport report;
    private final long maxLagMillis;

    public PumpLagHealthCheck(ShardReport report, long maxLagMillis) {
        this.report = report;
        this.maxLagMillis = maxLagMillis;
    }

    @Override
    protected Result check() {
        long[] oldest = report.oldestOverdue();
        if (oldest[0] > maxLagMillis) {
            return Result.unhealthy(
                    "shard %d has a message overdue by %d ms (limit api.maxPumpLag %d ms)%s",
                    oldest[1],
                    oldest[0],
                    maxLagMillis,
                    report.shards().get((int) oldest[1]).paused() ? "; that shard is paused" : "");
        }
        return Result.healthy("oldest overdue message: %d ms (limit %d ms)", oldest[0], maxLagMillis);
    }
}

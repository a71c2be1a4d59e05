package io.delaybridge.bridge.admin;

import com.codahale.metrics.health.HealthCheck;
import io.delaybridge.bridge.store.DelayStore;
import java.time.Clock;

/**
 * Healthy while this host's clock is within {@code maxSkewMillis} of Redis' TIME. Due times are judged on Redis'
 * clock, so skew does not make deliveries early or late; but lateness figures, log times and intake timestamps
 * (CreateTime topics) are this host's, and a large skew usually means NTP is broken somewhere.
 */
public final class ClockSkewHealthCheck extends HealthCheck {

    private final DelayStore store;
    private final Clock clock;
    private final long maxSkewMillis;

    public ClockSkewHealthCheck(DelayStore store, Clock clock, long maxSkewMillis) {
        this.store = store;
        this.clock = clock;
        this.maxSkewMillis = maxSkewMillis;
    }

    @Override
    protected Result check() {
        long before = clock.millis();
        long redisNow = store.now();
        long after = clock.millis();
        long skew = redisNow - (before + after) / 2;
        if (Math.abs(skew) > maxSkewMillis + (after - before) / 2) {
            return Result.unhealthy(
                    "clock skew %d ms (Redis minus host) exceeds api.maxClockSkew %d ms: check NTP"
                            + " on this host and the Redis host",
                    skew, maxSkewMillis);
        }
        return Result.healthy("clock skew %d ms (Redis minus host), limit %d ms", skew, maxSkewMillis);
    }
}

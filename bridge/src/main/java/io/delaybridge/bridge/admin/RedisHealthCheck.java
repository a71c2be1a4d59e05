package io.delaybridge.bridge.admin;

import com.codahale.metrics.health.HealthCheck;
import io.delaybridge.bridge.store.DelayStore;
import java.time.Clock;

/** Healthy while Redis answers; reports the skew between this host's clock and Redis' clock. */
public final class RedisHealthCheck extends HealthCheck {

    private final DelayStore store;
    private final Clock clock;

    public RedisHealthCheck(DelayStore store, Clock clock) {
        this.store = store;
        this.clock = clock;
    }

    @Override
    protected Result check() {
        long before = clock.millis();
        long redisNow = store.now();
        long after = clock.millis();
        long skew = redisNow - (before + after) / 2;
        return Result.healthy("reachable, %d shards, clock skew %d ms (Redis minus host)", store.shardCount(), skew);
    }
}

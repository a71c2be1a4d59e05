package io.delaybridge.bridge.admin;

import com.codahale.metrics.health.HealthCheck;
import io.delaybridge.bridge.store.DelayStore;
import io.delaybridge.bridge.store.MessageAdmin;

/** Healthy while Redis answers and accepts a write (a probe field in the store's meta hash). */
public final class RedisHealthCheck extends HealthCheck {

    private final DelayStore store;
    private final MessageAdmin messages;

    public RedisHealthCheck(DelayStore store, MessageAdmin messages) {
        this.store = store;
        this.messages = messages;
    }

    @Override
    protected Result check() {
        try {
            messages.probeWrite();
        } catch (RuntimeException e) {
            return Result.unhealthy("Redis does not accept writes: %s", e.getMessage());
        }
        return Result.healthy("reachable and writable, %d shards", store.shardCount());
    }
}

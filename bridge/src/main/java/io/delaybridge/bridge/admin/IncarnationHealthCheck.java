package io.delaybridge.bridge.admin;

import com.codahale.metrics.health.HealthCheck;
import io.delaybridge.bridge.store.MessageAdmin;

/** Healthy while Redis still holds the incarnation marker this bridge connected to, in the meta hash and every shard. */
public final class IncarnationHealthCheck extends HealthCheck {

    private final MessageAdmin messages;

    public IncarnationHealthCheck(MessageAdmin messages) {
        this.messages = messages;
    }

    @Override
    protected Result check() {
        String problem = messages.incarnationProblem();
        return problem == null
                ? Result.healthy("incarnation intact in the meta hash and every shard")
                : Result.unhealthy(problem + ". Pending messages may be gone: see docs/redis-store.md (data loss)");
    }
}

package io.delaybridge.bridge;

import io.delaybridge.bridge.store.redis.RedisDelayStore;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The store, a part of {@link DelayBridgeApplication}'s wiring: Redis checked and its scripts loaded while the topics
 * are checked beside it; the shard count comes from the intake's partitions once they are known.
 */
final class StorePart {

    private StorePart() {}

    /** The store on {@code redis}, closed by the lifecycle; a topic problem is reported before a Redis one. */
    static RedisDelayStore build(Wiring wiring, CompletableFuture<Integer> partitions) {
        StartupTimeline timeline = wiring.timeline();
        long since = timeline.now();
        AtomicLong waitedForTopics = new AtomicLong(); // the store asks for the shard count once Redis is checked
        RedisDelayStore store;
        try {
            store = wiring.config()
                    .getRedis()
                    .build(
                            wiring.kafka().getIntakeTopic(),
                            () -> {
                                long waiting = timeline.now();
                                int count = StartupSteps.await(partitions);
                                waitedForTopics.set(timeline.now() - waiting);
                                return count;
                            },
                            wiring.time(),
                            wiring.config().getPump().getWeights());
        } catch (RuntimeException e) {
            StartupSteps.await(partitions); // a topic problem is reported first: Redis may have failed only for it
            throw e;
        }
        timeline.took("redis", since + waitedForTopics.get());
        wiring.closing(store::close);
        return store;
    }
}

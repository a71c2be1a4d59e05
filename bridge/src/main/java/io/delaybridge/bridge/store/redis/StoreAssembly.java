package io.delaybridge.bridge.store.redis;

import io.delaybridge.bridge.store.WakeListener;
import io.delaybridge.bridge.time.Time;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The working parts of a {@link RedisDelayStore} over its {@link StoreAccess}, built and wired to each other in one
 * place: the {@link WritePlan} (fenced by the pump's epochs) feeds the intake's {@link WritePipeline}, and both feed
 * the far tier's {@link FarIndex}; beside them the pump's {@link ShardCalls}, the {@link ShardReads}, and the {@link
 * WakeSubscription} with the listeners it hands wake-ups to. {@link StoreOpening} builds them once Redis is ready.
 */
record StoreAssembly(
        WritePlan plan,
        WritePipeline writes,
        ShardCalls shardCalls,
        ShardReads reads,
        FarIndex far,
        List<WakeListener> wakeListeners,
        WakeSubscription wakeSubscription) {

    /**
     * Builds the parts over {@code access} and subscribes to the wake channels as {@code facts} allow; claims weigh the
     * lanes by {@code laneWeights}.
     */
    static StoreAssembly wire(
            StoreAccess access, ServerChecks.Facts facts, Time time, Map<String, Integer> laneWeights) {
        RedisConnections connections = access.connections();
        RedisKeys keys = access.keys();
        ScriptRunner scripts = access.scripts();
        WritePlan plan = new WritePlan(keys, access.router(), access.incarnation(), facts.publishCommand());
        WritePipeline writes = new WritePipeline(connections, scripts, plan, keys, time);
        FarIndex far = new FarIndex(
                connections.commands(), scripts, keys, access.router(), plan, writes, connections.awaitMillis());
        List<WakeListener> listeners = new CopyOnWriteArrayList<>();
        return new StoreAssembly(
                plan,
                writes,
                new ShardCalls(connections, scripts, keys, access.router(), access.publish(), laneWeights),
                new ShardReads(access),
                far,
                listeners,
                WakeSubscription.open(connections, keys, facts.shardedPubSub(), listeners));
    }
}

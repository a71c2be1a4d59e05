package io.delaybridge.bridge.store.redis;

import io.delaybridge.bridge.store.ShardRouter;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.util.concurrent.CompletionStage;

/**
 * What the store's parts that read and run scripts on the shared command connection are given together: the
 * connections, the loaded scripts, the key names, the router, the store's incarnation and the command its scripts
 * publish wake-ups with ({@code PUBLISH} or {@code SPUBLISH}).
 */
record StoreAccess(
        RedisConnections connections,
        ScriptRunner scripts,
        RedisKeys keys,
        ShardRouter router,
        String incarnation,
        byte[] publish) {

    /** The shared command connection. */
    RedisClusterAsyncCommands<byte[], byte[]> commands() {
        return connections.commands();
    }

    /** Waits for a reply as every call of the store waits: at most the connections' await time. */
    <T> T await(CompletionStage<T> future, String operation) {
        return RedisCalls.await(future, operation, connections.awaitMillis());
    }

    /** The Redis node that holds {@code shard} now ({@code host:port} on a cluster). */
    String nodeOf(int shard) {
        return connections.nodeOf(keys.shard(shard).due());
    }
}

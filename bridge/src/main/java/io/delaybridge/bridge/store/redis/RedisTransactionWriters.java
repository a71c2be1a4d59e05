package io.delaybridge.bridge.store.redis;

import io.delaybridge.bridge.store.TransactionWriters;
import io.delaybridge.bridge.store.redis.ScriptRunner.Script;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * {@link TransactionWriters} on the store's Redis: one set of instance ids per shard ({@link RedisKeys#writers}, in
 * the shard's slot), changed and read by {@code writers.lua}. One round trip per call; running a call again changes
 * nothing.
 */
public final class RedisTransactionWriters implements TransactionWriters {

    private static final byte[] NONE = new byte[0];

    private final StoreAccess access;

    /** On the store's command connection ({@link RedisDelayStore#transactionWriters()}). */
    RedisTransactionWriters(StoreAccess access) {
        this.access = access;
    }

    @Override
    public CompletableFuture<List<String>> register(int shard, String instance) {
        if (instance == null || instance.isEmpty()) {
            throw new IllegalArgumentException("a writer of shard " + shard + " needs a non-empty instance id");
        }
        return call(
                shard,
                RedisCalls.bytes(instance),
                List.of(),
                "recording " + instance + " as a writer of shard " + shard);
    }

    @Override
    public CompletableFuture<Void> forget(int shard, Collection<String> fenced) {
        return call(shard, NONE, fenced, "forgetting " + fenced + " as writers of shard " + shard)
                .thenApply(others -> null);
    }

    /** One {@code writers.lua} call: removes {@code remove}, then adds {@code add} (unless empty). */
    private CompletableFuture<List<String>> call(int shard, byte[] add, Collection<String> remove, String operation) {
        byte[][] keys = Script.WRITERS.signature().keysGiven(access.keys().writers(shard));
        byte[][] args = new byte[1 + remove.size()][];
        args[0] = add;
        int i = 1;
        for (String id : remove) {
            args[i++] = RedisCalls.bytes(id);
        }
        return RedisCalls.translated(
                        access.scripts()
                                .<List<Object>>run(
                                        access.commands(), Script.WRITERS, keys, Script.WRITERS.argvRepeated(args)),
                        operation)
                .thenApply(reply ->
                        reply.stream().map(id -> RedisCalls.string((byte[]) id)).toList());
    }
}

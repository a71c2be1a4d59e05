package io.delaybridge.bridge.store;

import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Which instances may have written exactly-once transactions carrying a shard's records. With
 * {@code delivery.exactlyOnce} each instance sends through transactional producers of its own, so a transaction
 * carrying a shard's records may come from any instance that owned the shard before. A shard's new owner must fence
 * every such instance before it delivers; this registry, kept in the store so that every instance sees it, tells it
 * whom. Both calls are idempotent.
 */
public interface TransactionWriters {

    /**
     * Records {@code instance} as a writer of {@code shard}'s transactions; completes with the other writers recorded
     * (never {@code instance} itself), in no particular order.
     */
    CompletableFuture<List<String>> register(int shard, String instance);

    /**
     * Forgets {@code fenced} as writers of {@code shard} (their producers were fenced); a writer that registers again
     * afterwards is kept.
     */
    CompletableFuture<Void> forget(int shard, Collection<String> fenced);
}

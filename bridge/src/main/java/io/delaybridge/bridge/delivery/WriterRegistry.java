package io.delaybridge.bridge.delivery;

import java.util.Collection;
import java.util.List;

/**
 * Which instances may have written exactly-once transactions carrying a shard's records, as delivery needs to know
 * it: a shard's new owner fences each of them ({@link TransactionalSends}). Kept in the store (config wires it);
 * blocking calls that throw if the store cannot answer.
 */
public interface WriterRegistry {

    /** Records {@code instance} as a writer of {@code shard}'s transactions; returns the other writers recorded. */
    List<String> register(int shard, String instance);

    /** Forgets {@code fenced} as writers of {@code shard}: their producers were fenced since they registered. */
    void forget(int shard, Collection<String> fenced);
}

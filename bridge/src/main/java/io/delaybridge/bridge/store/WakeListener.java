package io.delaybridge.bridge.store;

/** Called when a shard received a message due earlier than everything it held before. */
@FunctionalInterface
public interface WakeListener {
    void wake(int shard, long dueAt);
}

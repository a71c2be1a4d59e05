package io.delaybridge.bridge.store;

/** Counts of one shard. */
public record ShardStats(int shard, long pending, long inFlight, long nextDueAt) {}

package io.delaybridge.bridge.config;

/**
 * What a delivery is sized by, given together to {@link DeliveryFactory#build}.
 *
 * @param shards the store's shard count: one transactional producer and one delivered-log partition each
 * @param maxRecordBytes the largest record the intake takes, so the producers can send it
 * @param leaseMillis the pump's lease: a shard's transactions time out well within it
 */
public record DeliveryLimits(int shards, int maxRecordBytes, long leaseMillis) {}

package io.delaybridge.bridge.pump;

/**
 * What the pump needs to know, as plain values.
 *
 * @param batchSize         the most messages one claim takes from a shard
 * @param leaseMillis       how long a claimed message stays in flight before another owner may deliver it again
 * @param maxInFlight       the most messages sent and not yet acknowledged, over all shards: back-pressure
 * @param revokeDrainMillis how long a revoked shard waits for its in-flight sends before it is let go
 * @param lookAheadMillis   claims also take messages due this much later; the pump holds them until their due time
 */
public record PumpSettings(
        int batchSize, long leaseMillis, int maxInFlight, long revokeDrainMillis, long lookAheadMillis) {}

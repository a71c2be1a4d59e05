package io.delaybridge.bridge.delivery;

/**
 * Whether deliveries from a shard are paused now (the pump, or the shard, paused by an operator): the pump claims
 * nothing of a paused shard, and the express path parks that shard's records instead of sending them. Implemented by
 * the pump, which owns the pause; asked from any thread.
 */
public interface DeliveryPauses {

    /** True while nothing of {@code shard} may be delivered. */
    boolean paused(int shard);
}

package io.delaybridge.bridge.pump;

import io.delaybridge.bridge.delivery.DeliveryPauses;

/** The pump's pauses as delivery sees them: a shard is paused while the whole pump is, or the shard alone is. */
public record PumpPauses(Pump pump, PausableStore shards) implements DeliveryPauses {

    @Override
    public boolean paused(int shard) {
        return pump.paused() || shards.isPaused(shard);
    }
}

package io.delaybridge.bridge.express;

import io.delaybridge.bridge.delivery.Delivery;
import io.delaybridge.bridge.delivery.DeliveryPauses;
import io.delaybridge.bridge.delivery.TargetRates;
import io.delaybridge.bridge.delivery.TransactionOffsets;
import io.delaybridge.bridge.store.DelayStore;
import io.delaybridge.bridge.time.RedisClock;
import io.delaybridge.schemas.IntakeOrigin;
import java.util.Collection;
import java.util.Map;

/**
 * How the intake's records are sent: the {@link Delivery} both paths send with (with exactly once, express records
 * commit their offsets in their shard's transaction), the delivery rate caps and per-target meters, and whether
 * deliveries from a shard are paused (the pump, or the shard, paused by an operator: then its express records park
 * too).
 */
public record ExpressSends(Delivery delivery, TargetRates rates, DeliveryPauses pauses) implements IntakeDelivery {

    @Override
    public boolean exactlyOnce() {
        return delivery.exactlyOnce();
    }

    @Override
    public void carryOffsets(TransactionOffsets offsets) {
        delivery.carryOffsets(offsets);
    }

    @Override
    public Map<Integer, RuntimeException> openShards(Collection<Integer> partitions) {
        return delivery.openShards(partitions);
    }

    @Override
    public Map<Integer, Long> intakeFloors(Collection<Integer> partitions) {
        return delivery.intakeFloors(partitions);
    }

    @Override
    public void readAgain(int partition, long from, IntakeOrigin last) {
        delivery.readAgain(partition, from, last);
    }

    @Override
    public ExpressPath express(long windowMillis, DelayStore store, ExpressPath.Meters meters, RedisClock redisClock) {
        return new ExpressPath(windowMillis, store, this, meters, redisClock);
    }
}

package io.delaybridge.bridge.intake;

import io.delaybridge.bridge.delivery.Delivery;
import io.delaybridge.bridge.delivery.TargetRates;
import java.util.function.IntPredicate;

/**
 * How express records are sent: the {@link Delivery} both paths send with (with exactly once, express records commit
 * their offsets in their shard's transaction), the delivery rate caps and per-target meters, and whether deliveries
 * from a shard are paused (the pump, or the shard, paused by an operator: then its express records park too).
 */
public record ExpressSends(Delivery delivery, TargetRates rates, IntPredicate deliveryPaused) {}

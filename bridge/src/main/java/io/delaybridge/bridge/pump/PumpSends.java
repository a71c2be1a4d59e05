package io.delaybridge.bridge.pump;

import io.delaybridge.bridge.delivery.Delivery;
import io.delaybridge.bridge.delivery.TargetRates;

/**
 * How the pump sends: the {@link Delivery} both paths send with, the per-target rate caps and meters, and the
 * {@link RetryPolicy} for failed sends.
 */
public record PumpSends(Delivery delivery, TargetRates rates, RetryPolicy retryPolicy) {}

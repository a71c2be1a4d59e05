package io.delaybridge.bridge.intake;

import io.delaybridge.bridge.store.DelayStore;
import io.delaybridge.bridge.time.RedisClock;

/**
 * Where and by which clocks the intake stores: the {@link DelayStore}, the {@link FarPolicy} that sends records due
 * beyond the hot window to the far tier, and the model of Redis' clock (its {@link RedisClock#time} is the intake's
 * time too).
 */
public record IntakeStore(DelayStore store, FarPolicy far, RedisClock redisClock) {}

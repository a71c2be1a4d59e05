package io.delaybridge.bridge.thaw;

import io.delaybridge.bridge.store.FarStore;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * What the thaw reads besides the intake's log: the store's far tier, Redis' clock ({@code DelayStore.now}), and
 * shard -> fencing epoch of the shards this instance pumps ({@code Pump.ownedEpochs}).
 */
public record ThawSource(FarStore far, LongSupplier redisNow, Supplier<Map<Integer, Long>> ownedEpochs) {}

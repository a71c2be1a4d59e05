package io.delaybridge.bridge;

import io.delaybridge.bridge.pump.PausableStore;
import io.delaybridge.bridge.pump.Pump;
import io.delaybridge.bridge.pump.PumpMetrics;
import io.delaybridge.bridge.pump.PumpSends;
import io.delaybridge.bridge.store.redis.RedisDelayStore;
import io.delaybridge.bridge.time.RedisClock;

/**
 * The pump, a part of {@link DelayBridgeApplication}'s wiring: it claims what is due from the store's shards (each
 * shard can be paused by an admin task) and hands it to delivery; the one model of Redis' clock for the pump, the
 * intake and the release threads is made here.
 *
 * @param pumpStore the store as the pump sees it, with single shards pausable
 * @param pump the running pump
 * @param redisClock Redis' clock as the bridge models it
 */
record PumpPart(PausableStore pumpStore, Pump pump, RedisClock redisClock) {

    /** Builds the pump and hands it to the pipeline; a zombie's intake is fenced by the pump's shard epochs. */
    static PumpPart build(Wiring wiring, RedisDelayStore store, DeliveryPart delivery) {
        DelayBridgeConfiguration config = wiring.config();
        PausableStore pumpStore = new PausableStore(store);
        RedisClock redisClock = new RedisClock(wiring.time(), store::now);
        Pump pump = new Pump(
                pumpStore,
                new PumpSends(
                        delivery.delivery(), delivery.rates(), config.getPump().retryPolicy()),
                config.getPump().build(),
                new PumpMetrics(wiring.metrics(), wiring.deadletters()),
                redisClock,
                wiring.probe());
        wiring.running(pump);
        // a zombie's intake (stopped past its session) cannot store again what the shard's new owner delivered
        store.fenceWrites(pump::writeFence);
        return new PumpPart(pumpStore, pump, redisClock);
    }
}

package io.delaybridge.bridge;

import io.delaybridge.bridge.pump.Pump;
import io.delaybridge.bridge.pump.PumpMetrics;
import io.delaybridge.bridge.pump.PumpSends;
import io.delaybridge.bridge.store.redis.RedisDelayStore;
import io.delaybridge.bridge.time.RedisClock;

/**
 * The pump, a part of {@link DelayBridgeApplication}'s wiring: it claims what is due from the store's shards (the
 * pump or each shard can be paused by an admin task: {@link Pump#pauses}) and hands it to delivery; the one model of
 * Redis' clock for the pump, the intake and the release threads is made here.
 *
 * @param pump the running pump
 * @param redisClock Redis' clock as the bridge models it
 */
record PumpPart(Pump pump, RedisClock redisClock) {

    /** Builds the pump and hands it to the pipeline; a zombie's intake is fenced by the pump's shard epochs. */
    static PumpPart build(Wiring wiring, RedisDelayStore store, DeliveryPart delivery) {
        DelayBridgeConfiguration config = wiring.config();
        RedisClock redisClock = new RedisClock(wiring.time(), store::now);
        Pump pump = new Pump(
                store,
                new PumpSends(
                        delivery.delivery(), delivery.rates(), config.getPump().retryPolicy()),
                config.getPump().build(),
                new PumpMetrics(wiring.metrics(), wiring.deadletters()),
                redisClock,
                wiring.probe());
        wiring.running(pump);
        // a zombie's intake (stopped past its session) cannot store again what the shard's new owner delivered
        store.fenceWrites(pump::writeFence);
        return new PumpPart(pump, redisClock);
    }
}

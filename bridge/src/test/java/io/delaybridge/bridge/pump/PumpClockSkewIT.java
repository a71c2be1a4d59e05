package io.delaybridge.bridge.pump;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.bridge.store.ClaimBatch;
import io.delaybridge.bridge.store.DelayStore;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.SteppableClock;
import io.delaybridge.testkit.TestServers;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A pump on a host whose clock is wrong, or is set back while it runs, must still deliver on Redis' time. Redis'
 * clock decides when a message is due and when a lease runs out; the pump measures how far its own clock is off, and
 * times its reclaims on the monotonic clock. The fault campaign found a pump with a clock an hour fast that would have
 * waited an hour to return an expired lease (the interval was computed before the offset was first measured).
 */
@ExtendWith(RealServersExtension.class)
class PumpClockSkewIT {

    private static final long LEASE_MILLIS = 2_000;

    @ParameterizedTest(name = "host clock {0} h off")
    @ValueSource(ints = {1, -1})
    void returnsAnExpiredLeaseWhateverTheHostClock(int hours, TestServers servers) throws Exception {
        try (PumpRig rig = new PumpRig(servers, "skew", true)) {
            // the pump's first claim takes the message into flight under its own epoch, but its send never starts
            // (as with a release that hung): only the lease running out brings it back. A new owner's acquire hands
            // back at once what earlier owners left in flight, so a dead owner's claim would not test the lease.
            AtomicLong swallowedAt = new AtomicLong(-1);
            DelayStore store = PumpRig.interceptingClaims(
                    rig.store,
                    claim -> claim.get().thenApply(batch -> {
                        if (batch.messages().isEmpty() || !swallowedAt.compareAndSet(-1, batch.redisNow())) {
                            return batch;
                        }
                        return new ClaimBatch(List.of(), -1, batch.redisNow());
                    }));
            rig.schedule(0, rig.store.now());

            Clock skewed = Clock.offset(Clock.systemUTC(), Duration.ofHours(hours));
            Pump pump = rig.pump(store, new PumpSettings(100, LEASE_MILLIS, 1_000, 1_000, 0), skewed);
            pump.start();
            try {
                pump.assign(List.of(0));
                // the lease ends 2 s after the claim and reclaims run every second: an hour late if the pump timed
                // them on its host's clock
                await().atMost(Duration.ofSeconds(20))
                        .until(() -> rig.producer.history().size() >= 1);
                assertTrue(swallowedAt.get() >= 0, "the first claim took the message and sent nothing");
                // this host is Redis' host: one clock
                assertTrue(
                        rig.sentAtMillis.get(0) >= swallowedAt.get() + LEASE_MILLIS,
                        "sent " + (rig.sentAtMillis.get(0) - swallowedAt.get()) + " ms after the claim, before its "
                                + LEASE_MILLIS + " ms lease ran out");
                rig.awaitAcknowledged(1);
                assertEquals(0, rig.store.stats(0).pending());
            } finally {
                pump.stop();
            }
        }
    }

    @Test
    void keepsDeliveringOnTimeWhenTheHostClockIsSetBack(TestServers servers) throws Exception {
        try (PumpRig rig = new PumpRig(servers, "jump", true)) {
            SteppableClock clock = new SteppableClock();
            // a long lease: the re-evaluation every half lease must not be what rescues the message
            Pump pump = rig.pump(rig.store, new PumpSettings(100, 120_000, 1_000, 1_000, 0), clock);
            pump.start();
            try {
                pump.assign(List.of(0));
                rig.schedule(0, rig.store.now());
                await().atMost(Duration.ofSeconds(10))
                        .until(() -> rig.producer.history().size() == 1);

                clock.step(Duration.ofHours(-1));
                long dueAt = rig.store.now() + 500;
                rig.schedule(1, dueAt);
                await().atMost(Duration.ofSeconds(10))
                        .until(() -> rig.producer.history().size() == 2);
                assertTrue(rig.store.now() >= dueAt, "delivered at or after its due time");
            } finally {
                pump.stop();
            }
        }
    }
}

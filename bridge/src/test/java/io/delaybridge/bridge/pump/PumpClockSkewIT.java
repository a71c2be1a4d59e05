package io.delaybridge.bridge.pump;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.bridge.store.ClaimBatch;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.SteppableClock;
import io.delaybridge.testkit.TestServers;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A pump on a host whose clock is wrong, or is set back while it runs, must still deliver on Redis' time. Redis'
 * clock decides when a message is due and when a lease runs out; the pump measures how far its own clock is off.
 * The fault campaign found a pump with a clock an hour fast that would have waited an hour to return an expired
 * lease (the interval was computed before the offset was first measured).
 */
@ExtendWith(RealServersExtension.class)
class PumpClockSkewIT {

    private static final long LEASE_MILLIS = 2_000;

    @ParameterizedTest(name = "host clock {0} h off")
    @ValueSource(ints = {1, -1})
    void returnsALeaseLeftByADeadInstanceWhateverTheHostClock(int hours, TestServers servers) throws Exception {
        try (PumpRig rig = new PumpRig(servers, "skew", true)) {
            // an instance that claimed the message and died: its lease outlives the new owner's first reclaim
            long deadEpoch = rig.store.acquire(0);
            rig.schedule(0, rig.store.now());
            ClaimBatch claimed = rig.store.claim(0, deadEpoch, 10, 2 * LEASE_MILLIS);
            assertEquals(1, claimed.messages().size(), "the dead instance claimed the message");

            Clock skewed = Clock.offset(Clock.systemUTC(), Duration.ofHours(hours));
            Pump pump = rig.pump(rig.store, new PumpSettings(100, LEASE_MILLIS, 1_000, 1_000, 0), skewed);
            pump.start();
            try {
                pump.assign(List.of(0));
                // the lease ends 4 s after the claim; reclaims run every second
                await().atMost(Duration.ofSeconds(20))
                        .until(() -> rig.producer.history().size() == 1);
                await().atMost(Duration.ofSeconds(10))
                        .until(() -> rig.store.stats(0).inFlight() == 0);
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

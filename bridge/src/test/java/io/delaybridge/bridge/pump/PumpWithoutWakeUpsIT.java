package io.delaybridge.bridge.pump;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.delaybridge.bridge.store.DelayStore;
import io.delaybridge.bridge.store.WriteOp;
import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.schemas.Envelope;
import io.delaybridge.schemas.EnvelopeCodec;
import io.delaybridge.schemas.IntakeOrigin;
import io.delaybridge.schemas.IntakeParser;
import io.delaybridge.schemas.SeriesHeaders;
import io.delaybridge.schemas.SeriesRecord;
import io.delaybridge.schemas.TargetPolicy;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.TestServers;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The pump gets none of the store's wake-ups (they are best-effort: a reconnect can miss one) and still delivers:
 * a series' next occurrence, stored by the call that settles the last one, wakes the pump at its due time, and every
 * shard is claimed at least every half lease, so a message whose wake-up was missed waits no longer than that. Real
 * Redis and broker, the pump wired as the application wires it.
 */
@ExtendWith(RealServersExtension.class)
class PumpWithoutWakeUpsIT {

    private static final int OCCURRENCES = 3;

    @Test
    void eachOccurrenceIsDeliveredThoughNoWakeUpArrives(TestServers servers) throws Exception {
        try (PumpRig rig = new PumpRig(servers, "serieswake", true)) {
            DelayStore deaf = PumpRig.withoutWakeUps(rig.store);
            // a lease of 10 minutes: its reclaims, every half lease, come long after the test's deadline
            Pump pump = rig.pump(deaf, new PumpSettings(16, 600_000, 16, 1_000, 0), Clock.systemUTC());
            rig.store.write(List.of(series(rig, rig.store.now()))).get(10, TimeUnit.SECONDS);
            pump.start();
            try {
                pump.assign(List.of(0));
                // one occurrence a second: a pump that waits for a wake-up delivers the first only
                await().atMost(Duration.ofSeconds(30))
                        .untilAsserted(() ->
                                assertEquals(OCCURRENCES, rig.producer.history().size(), "occurrences sent"));
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> rig.store.stats(0).pending() == 0);
            } finally {
                pump.stop();
            }
        }
    }

    @Test
    void aMessageWhoseWakeUpWasMissedIsClaimedWithinHalfALease(TestServers servers) throws Exception {
        try (PumpRig rig = new PumpRig(servers, "nowake", true)) {
            AtomicInteger claimsAnswered = new AtomicInteger();
            DelayStore store = PumpRig.interceptingClaims(
                    PumpRig.withoutWakeUps(rig.store),
                    claim -> claim.get().whenComplete((batch, error) -> claimsAnswered.incrementAndGet()));
            // a lease of 2 s: every shard is claimed at least every second
            Pump pump = rig.pump(store, new PumpSettings(16, 2_000, 16, 1_000, 0), Clock.systemUTC());
            pump.start();
            try {
                pump.assign(List.of(0));
                // the shard was claimed empty: the pump knows of nothing due in it
                await().atMost(Duration.ofSeconds(30)).until(() -> claimsAnswered.get() > 0);
                rig.schedule(0, rig.store.now() + 500);
                await().atMost(Duration.ofSeconds(30))
                        .untilAsserted(
                                () -> assertEquals(1, rig.producer.history().size(), "sent"));
            } finally {
                pump.stop();
            }
        }
    }

    /** A series for the rig's target, every second, {@value #OCCURRENCES} times, as the intake stores it. */
    private static WriteOp.Schedule series(PumpRig rig, long now) throws Exception {
        RecordHeaders headers = new RecordHeaders();
        headers.add(DelayHeaders.TARGET, utf8(rig.target));
        headers.add(DelayHeaders.ID, utf8("tick"));
        headers.add(SeriesHeaders.EVERY, utf8("1s"));
        headers.add(SeriesHeaders.COUNT, utf8(Integer.toString(OCCURRENCES)));
        IntakeParser parser = new IntakeParser(
                new TargetPolicy(rig.topic, rig.topic + "-dlq", List.of()),
                Duration.ofDays(1).toMillis());
        SeriesRecord.First first = SeriesRecord.read(parser, headers, now).orElseThrow();
        IntakeOrigin origin = new IntakeOrigin(rig.topic, 0, 0);
        Envelope envelope = new Envelope(rig.target, null, origin.toString(), null, utf8("v"), List.of(first.state()));
        return new WriteOp.Schedule(
                first.schedule().id(), first.schedule().dueAt(), origin, EnvelopeCodec.encode(envelope), now);
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}

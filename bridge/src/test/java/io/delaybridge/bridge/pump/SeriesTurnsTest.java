package io.delaybridge.bridge.pump;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.bridge.store.ClaimedMessage;
import io.delaybridge.bridge.store.MessageRef;
import io.delaybridge.bridge.time.MockTime;
import io.delaybridge.bridge.time.RedisClock;
import io.delaybridge.schemas.ContractViolation;
import io.delaybridge.schemas.Envelope;
import io.delaybridge.schemas.EnvelopeCodec;
import io.delaybridge.schemas.IntakeParser;
import io.delaybridge.schemas.SeriesPlanner;
import io.delaybridge.schemas.SeriesRecord;
import io.delaybridge.schemas.TargetPolicy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

/** The keys exactly once remembers claimed messages by: each occurrence of a series its own. */
class SeriesTurnsTest {

    private static final long TS = 1_790_000_000_000L;
    private static final IntakeParser PARSER = new IntakeParser(
            new TargetPolicy("delay-intake", "delay-deadletter", List.of()),
            Duration.ofDays(365).toMillis());

    private final MockTime time = new MockTime();
    /** Redis' clock, read once at {@link #TS}. */
    private final RedisClock clock = new RedisClock(time, () -> TS);

    private final SeriesTurns exactlyOnce = new SeriesTurns(clock, true);

    @Test
    void eachPendingOccurrenceOfASeriesHasItsOwnKey() throws ContractViolation {
        Envelope first = series();
        ClaimedMessage claimed = claimed("tick", first);
        assertEquals("tick\u00001", exactlyOnce.deliveryKey(claimed));
        assertEquals("tick\u00001", exactlyOnce.deliveryKey("tick", first), "the key at release is the claim's");

        SeriesRecord.Turn turn = SeriesRecord.turn(
                SeriesRecord.state(first),
                first,
                new SeriesPlanner(SeriesPlanner.DEFAULT_SKIP_GRACE_MILLIS),
                TS + 1000);
        Envelope second = SeriesRecord.toStore(turn.envelope());
        assertEquals("tick\u00002", exactlyOnce.deliveryKey(claimed("tick", second)));
        assertNotEquals(exactlyOnce.deliveryKey(claimed), exactlyOnce.deliveryKey(claimed("tick", second)));
    }

    @Test
    void aOneShotMessageIsKnownByItsId() {
        Envelope oneShot = new Envelope("out", null, "delay-intake/0/8", null, bytes("v"), List.of());
        assertEquals("once", exactlyOnce.deliveryKey(claimed("once", oneShot)));
    }

    @Test
    void atLeastOnceEveryKeyIsTheId() throws ContractViolation {
        SeriesTurns atLeastOnce = new SeriesTurns(clock, false);
        assertEquals("tick", atLeastOnce.deliveryKey(claimed("tick", series())));
    }

    /**
     * A reading answered slowly leaves Redis' time uncertain by its round trip: the estimate (midway) may be past the
     * next occurrence while Redis' clock is not. The turn takes what the clock has certainly passed, so the next
     * occurrence is not sent before it is due.
     */
    @Test
    void aTurnDeliversOnlyWhatRedisClockHasCertainlyPassed() throws ContractViolation {
        Envelope first = series();
        long due = SeriesRecord.state(first).pending().dueAtMillis();
        long t0 = time.nanoseconds();
        // read at due + 100 ms, answered 2 s after it was asked: Redis' clock lies between due + 100 and due + 2,100
        clock.observe(due + 100, t0, t0 + TimeUnit.SECONDS.toNanos(2));
        time.sleep(2_000);
        assertTrue(clock.now() >= due + 1_000, "the estimate has passed the second occurrence: " + (clock.now() - due));

        SeriesRecord.Turn turn = exactlyOnce.turn(first, due);
        assertEquals(1, turn.delivered().number(), "the first occurrence goes, the second is not due for certain");
        assertEquals(due, turn.delivered().dueAtMillis());
        assertEquals(due + 1_000, turn.next().dueAtMillis(), "the second stays pending");

        time.sleep(1_000); // Redis' clock is now past due + 1,100 for certain
        assertEquals(2, exactlyOnce.turn(first, due).delivered().number(), "late by more than a second: one goes");
    }

    @Test
    void aValueThatDoesNotDecodeIsKnownByItsId() {
        byte[] value = bytes("garbage with delay-series inside");
        assertEquals(
                "bad", exactlyOnce.deliveryKey(new ClaimedMessage(new MessageRef("bad", bytes("bad")), TS, 1, value)));
    }

    private static Envelope series() throws ContractViolation {
        RecordHeaders headers = new RecordHeaders();
        headers.add("delay-target", bytes("out"));
        headers.add("delay-id", bytes("tick"));
        headers.add("delay-every", bytes("1s"));
        SeriesRecord.First first = SeriesRecord.read(PARSER, headers, TS).orElseThrow();
        return new Envelope("out", null, "delay-intake/0/7", null, bytes("v"), List.of(first.state()));
    }

    private static ClaimedMessage claimed(String id, Envelope envelope) {
        return new ClaimedMessage(new MessageRef(id, bytes(id)), TS + 1000, 1, EnvelopeCodec.encode(envelope));
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}

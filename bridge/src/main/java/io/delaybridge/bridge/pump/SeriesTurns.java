package io.delaybridge.bridge.pump;

import io.delaybridge.bridge.store.ClaimedMessage;
import io.delaybridge.bridge.store.SeriesStep;
import io.delaybridge.bridge.time.RedisClock;
import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.schemas.Envelope;
import io.delaybridge.schemas.EnvelopeCodec;
import io.delaybridge.schemas.SeriesPlanner;
import io.delaybridge.schemas.SeriesRecord;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The pump's share of a series ({@link SeriesRecord}): when a series' message is released, which occurrence goes out
 * (the missed-run policy, by what Redis' clock has certainly passed), and once it is settled, the {@link SeriesStep} that stores the next one in
 * the same script call; and under exactly once, the name each occurrence is remembered by ({@link #deliveryKey}).
 */
final class SeriesTurns {

    /** Between a series' id and its pending occurrence's number in a delivery key: no id written by hand holds it. */
    static final char KEY_SEPARATOR = '\u0000';

    private static final byte[] SERIES_HEADER = DelayHeaders.SERIES.getBytes(StandardCharsets.UTF_8);

    private final SeriesPlanner planner = new SeriesPlanner(SeriesPlanner.DEFAULT_SKIP_GRACE_MILLIS);
    private final RedisClock redisClock;
    private final boolean exactlyOnce;

    /**
     * @param redisClock  Redis' clock: a turn delivers only occurrences its lower bound has passed ({@link
     *                    RedisClock#atLeast}; the estimate may run ahead by half a slow reading's round trip, and an
     *                    occurrence taken by it would go out early)
     * @param exactlyOnce whether deliveries are remembered by key ({@code delivery.exactlyOnce}): else every key is
     *                    the id, and nothing is decoded for it
     */
    SeriesTurns(RedisClock redisClock, boolean exactlyOnce) {
        this.redisClock = redisClock;
        this.exactlyOnce = exactlyOnce;
    }

    /**
     * The name under which exactly once remembers a claimed message as delivered (claim, release, send, retry, ack
     * all report it by this name): a one-shot message's id; for a series, its id and the number of the occurrence it
     * holds pending. Every occurrence of a series is stored under the series id, so by id alone the delivered log
     * would take occurrence 2 for occurrence 1 delivered before, and ack it unsent. The pending number changes only in
     * the call that settles a delivered occurrence, so a message claimed again after a crash, before that call, has
     * the key its committed delivery was remembered by, and is acked, not sent again.
     */
    String deliveryKey(ClaimedMessage message) {
        String id = message.ref().id();
        if (!exactlyOnce || !mentionsSeries(message.value(), message.envelopeFrom())) {
            return id;
        }
        try {
            return deliveryKey(id, message.decode());
        } catch (RuntimeException e) {
            return id; // it does not decode: its release deadletters it under its id
        }
    }

    /** The message id in a name {@link #deliveryKey} gave. */
    static String idOf(String deliveryKey) {
        int separator = deliveryKey.indexOf(KEY_SEPARATOR);
        return separator < 0 ? deliveryKey : deliveryKey.substring(0, separator);
    }

    /** {@link #deliveryKey(ClaimedMessage)} of the message {@code id} whose stored envelope is {@code stored}. */
    String deliveryKey(String id, Envelope stored) {
        if (!exactlyOnce) {
            return id;
        }
        SeriesRecord.State state;
        try {
            state = SeriesRecord.state(stored);
        } catch (RuntimeException e) {
            return id;
        }
        return state == null || state.pending() == null
                ? id
                : id + KEY_SEPARATOR + state.pending().number();
    }

    /** Whether the stored bytes hold the series header's name: one-shot messages are told apart without a decode. */
    private static boolean mentionsSeries(byte[] value, int from) {
        byte first = SERIES_HEADER[0];
        int last = value.length - SERIES_HEADER.length;
        for (int i = from; i <= last; i++) {
            // a range compare only where the first byte matches: a compare at every byte cost more than the claim
            if (value[i] == first
                    && Arrays.equals(value, i, i + SERIES_HEADER.length, SERIES_HEADER, 0, SERIES_HEADER.length)) {
                return true;
            }
        }
        return false;
    }

    /**
     * @param envelope a released message's envelope
     * @param dueAt    the due time it was claimed with: the releaser sent it no earlier
     * @return the series' turn, or null for a one-shot message
     * @throws io.delaybridge.schemas.CorruptEnvelopeException if its series state does not read
     */
    SeriesRecord.Turn turn(Envelope envelope, long dueAt) {
        SeriesRecord.State state = SeriesRecord.state(envelope);
        if (state == null || state.pending() == null) {
            return null;
        }
        long now =
                Math.max(redisClock.atLeast(), Math.max(dueAt, state.pending().dueAtMillis()));
        return SeriesRecord.turn(state, envelope, planner, now);
    }

    /**
     * The step that settles a delivered, already delivered or deadlettered message; counts a series' turn in
     * {@code meters} as it goes to the store (an occurrence deadlettered is not counted as delivered).
     *
     * @param outcome what became of the message's send
     * @param meters  the series' meters
     * @return the step that settles it and stores its next occurrence, or null for a one-shot message
     */
    static SeriesStep step(Outcome outcome, SeriesMeters meters) {
        SeriesStep step = step(outcome.message(), outcome.envelope());
        if (step != null) {
            SeriesRecord.Tally tally = SeriesRecord.tally(outcome.envelope());
            boolean sent = outcome.kind() != Outcome.Kind.DEADLETTERED;
            meters.settled(
                    outcome.message().ref().id(),
                    outcome.envelope().target(),
                    new SeriesRecord.Tally(sent && tally.delivered(), tally.missed(), tally.skipped()));
        }
        return step;
    }

    /**
     * @param message  a settled message
     * @param envelope the envelope its turn delivered (or deadlettered); null if it did not decode
     * @return the step that settles it and stores its next occurrence, or null for a one-shot message
     */
    static SeriesStep step(ClaimedMessage message, Envelope envelope) {
        if (envelope == null) {
            return null;
        }
        SeriesRecord.State state;
        try {
            state = SeriesRecord.state(envelope);
        } catch (RuntimeException e) {
            return null; // it was deadlettered as corrupt: deleted like a one-shot message
        }
        if (state == null) {
            return null;
        }
        if (state.pending() == null) {
            return new SeriesStep(message.ref(), SeriesStep.OVER, null);
        }
        byte[] header = Arrays.copyOf(message.value(), message.envelopeFrom());
        byte[] body = EnvelopeCodec.encode(SeriesRecord.toStore(envelope));
        byte[] value = Arrays.copyOf(header, header.length + body.length);
        System.arraycopy(body, 0, value, header.length, body.length);
        return new SeriesStep(message.ref(), state.pending().dueAtMillis(), value);
    }
}

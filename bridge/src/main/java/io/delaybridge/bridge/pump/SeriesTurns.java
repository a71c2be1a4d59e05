package io.delaybridge.bridge.pump;

import io.delaybridge.bridge.store.ClaimedMessage;
import io.delaybridge.bridge.store.SeriesStep;
import io.delaybridge.schemas.Envelope;
import io.delaybridge.schemas.EnvelopeCodec;
import io.delaybridge.schemas.SeriesPlanner;
import io.delaybridge.schemas.SeriesRecord;
import java.util.Arrays;
import java.util.function.LongSupplier;

/**
 * The pump's share of a series ({@link SeriesRecord}): when a series' message is released, which occurrence goes out
 * (the missed-run policy, by Redis' clock), and once it is settled, the {@link SeriesStep} that stores the next one in
 * the same script call.
 */
final class SeriesTurns {

    private final SeriesPlanner planner = new SeriesPlanner(SeriesPlanner.DEFAULT_SKIP_GRACE_MILLIS);
    private final LongSupplier redisNow;

    /** @param redisNow Redis' time now, epoch ms */
    SeriesTurns(LongSupplier redisNow) {
        this.redisNow = redisNow;
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
                Math.max(redisNow.getAsLong(), Math.max(dueAt, state.pending().dueAtMillis()));
        return SeriesRecord.turn(state, envelope, planner, now);
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

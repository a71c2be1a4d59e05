package io.delaybridge.bridge.store;

import io.delaybridge.schemas.Envelope;
import io.delaybridge.schemas.EnvelopeCodec;
import java.util.Arrays;
import java.util.function.Supplier;

/**
 * A message taken into flight by a claim: deliver it, then ack, retry or deadletter it.
 *
 * <p>It holds the value as the claim read it: the envelope starts at {@code envelopeFrom}, and {@link #decode} reads
 * it there, once, without a copy; {@code emptyOrigin}, if not null, is the origin of an envelope stored without one
 * (a default id's own record: its id names the intake record).
 */
public record ClaimedMessage(
        MessageRef ref, long dueAt, int attempt, byte[] value, int envelopeFrom, Supplier<String> emptyOrigin) {

    /** A message whose {@code envelope} is the whole value, its origin in it. */
    public ClaimedMessage(MessageRef ref, long dueAt, int attempt, byte[] envelope) {
        this(ref, dueAt, attempt, envelope, 0, null);
    }

    /**
     * The envelope, decoded.
     *
     * @throws io.delaybridge.schemas.CorruptEnvelopeException if the stored bytes are not an envelope
     */
    public Envelope decode() {
        return EnvelopeCodec.decode(value, envelopeFrom, emptyOrigin);
    }

    /** The envelope's bytes as stored: what a deadletter record of a message that does not decode carries. */
    public byte[] envelope() {
        return envelopeFrom == 0 ? value : Arrays.copyOfRange(value, envelopeFrom, value.length);
    }
}

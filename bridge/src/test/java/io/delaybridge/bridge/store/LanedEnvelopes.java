package io.delaybridge.bridge.store;

import io.delaybridge.schemas.Envelope;
import io.delaybridge.schemas.EnvelopeCodec;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The store contract with real envelopes, all for one target topic: every message then waits in that target's lane
 * (lanes.lua), where {@link StoreContract}'s plain-text payloads wait in the lane of values that hold no envelope. A
 * contract run that mixes this in covers each script's lane keys; one that does not covers the old lane.
 */
public interface LanedEnvelopes extends StoreContract {

    String LANE_TARGET = "orders.timeout";

    @Override
    default byte[] envelope(String text) {
        return EnvelopeCodec.encode(
                new Envelope(LANE_TARGET, null, "", null, text.getBytes(StandardCharsets.UTF_8), List.of()));
    }

    @Override
    default String body(ClaimedMessage message) {
        Envelope envelope = EnvelopeCodec.decode(message.envelope());
        if (!LANE_TARGET.equals(envelope.target())) {
            throw new AssertionError("target " + envelope.target() + ", not " + LANE_TARGET);
        }
        return new String(envelope.value(), StandardCharsets.UTF_8);
    }
}

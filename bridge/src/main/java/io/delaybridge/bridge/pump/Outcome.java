package io.delaybridge.bridge.pump;

import io.delaybridge.bridge.delivery.TargetRates;
import io.delaybridge.bridge.store.ClaimedMessage;
import io.delaybridge.schemas.Envelope;
import io.delaybridge.schemas.ErrorCode;

/**
 * What became of one send, reported by the producer's callback thread to the pump thread. It carries the envelope the
 * sender decoded ({@code envelope}; null only for stored bytes that no longer decode, which go to the deadletter topic
 * as they are), so the failure path never decodes the message again. A delivered one carries its target's meters
 * ({@code target}; null in the other kinds).
 */
record Outcome(
        OwnedShard shard,
        ClaimedMessage message,
        Envelope envelope,
        Kind kind,
        long deliveredAt,
        Exception error,
        ErrorCode code,
        TargetRates.Target target) {

    enum Kind {
        /** The target topic has it. */
        DELIVERED,
        /** A committed transaction had delivered it before (a crash, a lost answer): nothing sent now; ack it. */
        ALREADY_DELIVERED,
        /** The send failed: retry or deadletter. */
        FAILED,
        /** The deadletter topic has it. */
        DEADLETTERED,
        /** Even the deadletter send failed: retry the whole message later. */
        DEADLETTER_FAILED
    }

    static Outcome delivered(OwnedShard shard, ClaimedMessage message, long timestamp) {
        return delivered(shard, message, null, null, timestamp);
    }

    static Outcome delivered(
            OwnedShard shard, ClaimedMessage message, Envelope envelope, TargetRates.Target target, long timestamp) {
        return new Outcome(shard, message, envelope, Kind.DELIVERED, timestamp, null, null, target);
    }

    static Outcome alreadyDelivered(OwnedShard shard, ClaimedMessage message, Envelope envelope) {
        return new Outcome(shard, message, envelope, Kind.ALREADY_DELIVERED, -1, null, null, null);
    }

    static Outcome failed(
            OwnedShard shard, ClaimedMessage message, Envelope envelope, Exception error, ErrorCode code) {
        return new Outcome(shard, message, envelope, Kind.FAILED, -1, error, code, null);
    }

    static Outcome deadlettered(OwnedShard shard, ClaimedMessage message, Envelope envelope, ErrorCode code) {
        return new Outcome(shard, message, envelope, Kind.DEADLETTERED, -1, null, code, null);
    }

    static Outcome deadletterFailed(OwnedShard shard, ClaimedMessage message, Envelope envelope, Exception error) {
        return new Outcome(shard, message, envelope, Kind.DEADLETTER_FAILED, -1, error, null, null);
    }
}

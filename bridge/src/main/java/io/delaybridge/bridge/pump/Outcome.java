package io.delaybridge.bridge.pump;

import io.delaybridge.bridge.delivery.TargetRates;
import io.delaybridge.bridge.store.ClaimedMessage;
import io.delaybridge.schemas.ErrorCode;

/**
 * What became of one send, reported by the producer's callback thread to the pump thread. A delivered one carries its
 * target's meters ({@code target}; null in the other kinds).
 */
record Outcome(OwnedShard shard, ClaimedMessage message, Kind kind, long deliveredAt, Exception error, ErrorCode code,
        TargetRates.Target target) {

    enum Kind {
        /** The target topic has it. */
        DELIVERED,
        /** The send failed: retry or deadletter. */
        FAILED,
        /** The deadletter topic has it. */
        DEADLETTERED,
        /** Even the deadletter send failed: retry the whole message later. */
        DEADLETTER_FAILED
    }

    static Outcome delivered(OwnedShard shard, ClaimedMessage message, long timestamp) {
        return delivered(shard, message, null, timestamp);
    }

    static Outcome delivered(OwnedShard shard, ClaimedMessage message, TargetRates.Target target, long timestamp) {
        return new Outcome(shard, message, Kind.DELIVERED, timestamp, null, null, target);
    }

    static Outcome failed(OwnedShard shard, ClaimedMessage message, Exception error, ErrorCode code) {
        return new Outcome(shard, message, Kind.FAILED, -1, error, code, null);
    }

    static Outcome deadlettered(OwnedShard shard, ClaimedMessage message, ErrorCode code) {
        return new Outcome(shard, message, Kind.DEADLETTERED, -1, null, code, null);
    }

    static Outcome deadletterFailed(OwnedShard shard, ClaimedMessage message, Exception error) {
        return new Outcome(shard, message, Kind.DEADLETTER_FAILED, -1, error, null, null);
    }
}

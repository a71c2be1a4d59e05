package io.delaybridge.bridge.pump;

import io.delaybridge.bridge.store.ClaimedMessage;

/** A claimed message and the shard it was claimed from, as the release thread holds it until its due time. */
record Claimed(OwnedShard shard, ClaimedMessage message) {
    @Override
    public String toString() {
        return "message " + message.ref().id() + " of shard " + shard.shard;
    }
}

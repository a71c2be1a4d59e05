package io.delaybridge.bridge.store;

import java.util.List;

/**
 * The result of a claim: the messages now in flight, the shard's next due time after them ({@code -1} if none), and
 * Redis' clock when the claim ran.
 */
public record ClaimBatch(List<ClaimedMessage> messages, long nextDueAt, long redisNow) {

    public boolean hasNext() {
        return nextDueAt >= 0;
    }
}

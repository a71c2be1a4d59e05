package io.delaybridge.bridge.pump;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * When the pump claims, from which shards and how much: the timing of claim rounds and the sharing of the free
 * in-flight places among the due shards. Redis times in epoch ms. Holds no connection; pump thread only.
 */
final class ClaimRounds {

    private final long lookAheadMillis;
    private final int batchSize;
    /** Redis' time of the last claim round: rounds come at most every half look-ahead. */
    private long lastRoundAt = Long.MIN_VALUE / 2;

    ClaimRounds(long lookAheadMillis, int batchSize) {
        this.lookAheadMillis = lookAheadMillis;
        this.batchSize = batchSize;
    }

    /**
     * When the claim round that takes a message due at {@code dueAt} should run (MIN, claim now, and MAX, nothing
     * due, stay as they are): not before the look-ahead, and, so that one round serves many shards and each claim
     * many messages, not within half a look-ahead of the last round unless the message would then be claimed less
     * than half a look-ahead before its due time.
     *
     * <p>Without that bound a steady stream was claimed as it entered the look-ahead window, one message at a time:
     * at 5,000 records/s over 16 shards the pump ran ~1,500 claims a second of 3-4 messages each, and a longer
     * look-ahead only moved the window. With it, a round runs at most every half look-ahead and takes what falls due
     * in the next whole look-ahead: each message is claimed between one and one half look-ahead before its due time.
     */
    long roundTime(long dueAt) {
        if (dueAt == Long.MIN_VALUE || dueAt == Long.MAX_VALUE) {
            return dueAt;
        }
        long latest = dueAt - lookAheadMillis / 2;
        return Math.max(dueAt - lookAheadMillis, Math.min(lastRoundAt + lookAheadMillis / 2, latest));
    }

    /** When a shard needs its next claim round: at its earliest known or announced due time. */
    long roundTime(OwnedShard shard) {
        return roundTime(nextDueAt(shard));
    }

    /**
     * Starts a round at Redis time {@code now} if one is due for any of the shards; returns false if not (the pump
     * was woken early, by an outcome or a later message: the round comes at its time).
     */
    boolean startRound(List<OwnedShard> shards, long now) {
        long roundAt = Long.MAX_VALUE;
        for (OwnedShard shard : shards) {
            if (!shard.revoked) {
                roundAt = Math.min(roundAt, roundTime(shard));
            }
        }
        if (roundAt > now) {
            return false;
        }
        lastRoundAt = now;
        return true;
    }

    /** The shards with something due within the look-ahead of {@code now}, at most one per free place. */
    List<OwnedShard> dueShards(List<OwnedShard> shards, long now, int room) {
        List<OwnedShard> due = new ArrayList<>(shards.size());
        for (OwnedShard shard : shards) {
            if (!shard.revoked && nextDueAt(shard) <= now + lookAheadMillis && due.size() < room) {
                due.add(shard);
            }
        }
        return due;
    }

    /** How many messages each of {@code dueShards} claims: the free places shared, at least one, at most a batch. */
    int[] perShard(List<OwnedShard> dueShards, int room) {
        int[] want = new int[dueShards.size()];
        Arrays.fill(want, Math.max(1, Math.min(batchSize, room / dueShards.size())));
        return want;
    }

    private static long nextDueAt(OwnedShard shard) {
        return Math.min(shard.nextDueAt, shard.wokenAt.get());
    }
}

package io.delaybridge.bridge.pump;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class ClaimRoundsTest {

    private static final long NOW = 1_700_000_000_000L;

    @Test
    void aRoundComesBetweenOneAndHalfALookAheadBeforeTheDueTime() {
        ClaimRounds rounds = new ClaimRounds(100, 500);
        assertEquals(Long.MIN_VALUE, rounds.roundTime(Long.MIN_VALUE), "claim now stays claim now");
        assertEquals(Long.MAX_VALUE, rounds.roundTime(Long.MAX_VALUE), "nothing due stays nothing due");
        assertEquals(NOW + 900, rounds.roundTime(NOW + 1_000), "no round yet: a whole look-ahead before");

        assertTrue(rounds.startRound(List.of(shardDueAt(NOW + 60)), NOW));
        assertEquals(NOW + 50, rounds.roundTime(NOW + 140), "half a look-ahead after the last round");
        assertEquals(NOW + 10, rounds.roundTime(NOW + 60), "but never less than half a look-ahead before due");
        assertEquals(NOW + 900, rounds.roundTime(NOW + 1_000), "and never before the look-ahead");
    }

    @Test
    void aRoundStartsOnlyWhenSomeLiveShardIsDue() {
        ClaimRounds rounds = new ClaimRounds(100, 500);
        OwnedShard revoked = shardDueAt(NOW);
        revoked.revoked = true;
        assertFalse(rounds.startRound(List.of(revoked, shardDueAt(NOW + 1_000)), NOW));
        OwnedShard woken = shardDueAt(NOW + 1_000);
        woken.woken(NOW + 40);
        assertTrue(rounds.startRound(List.of(woken), NOW), "an announced earlier message starts a round");
    }

    @Test
    void dueShardsAreThoseWithinTheLookAheadAtMostOnePerFreePlace() {
        ClaimRounds rounds = new ClaimRounds(100, 500);
        OwnedShard a = shardDueAt(NOW + 100);
        OwnedShard b = shardDueAt(NOW + 101);
        OwnedShard c = shardDueAt(NOW - 5);
        assertEquals(List.of(a, c), rounds.dueShards(List.of(a, b, c), NOW, 10));
        assertEquals(List.of(a), rounds.dueShards(List.of(a, b, c), NOW, 1));
    }

    @Test
    void freePlacesAreSharedAtLeastOneAtMostABatch() {
        ClaimRounds rounds = new ClaimRounds(100, 500);
        assertArrayEquals(new int[] {500, 500}, rounds.perShard(shards(2), 10_000));
        assertArrayEquals(new int[] {250, 250, 250, 250}, rounds.perShard(shards(4), 1_000));
        assertArrayEquals(new int[] {1, 1, 1, 1}, rounds.perShard(shards(4), 3));
    }

    private static List<OwnedShard> shards(int count) {
        List<OwnedShard> shards = new java.util.ArrayList<>();
        for (int i = 0; i < count; i++) {
            shards.add(shardDueAt(NOW));
        }
        return shards;
    }

    private static OwnedShard shardDueAt(long dueAt) {
        OwnedShard shard = new OwnedShard(0, 0);
        shard.nextDueAt = dueAt;
        return shard;
    }
}

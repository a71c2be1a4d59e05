package io.delaybridge.bridge.pump;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.bridge.store.ClaimedMessage;
import io.delaybridge.bridge.store.MessageRef;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class HandBackOrderTest {

    private static final long FORGET = 1_000;
    private final HandBackOrder order = new HandBackOrder(FORGET);
    private final OwnedShard shard = new OwnedShard(2, 0);

    private static ClaimedMessage due(long dueAt, String id) {
        return new ClaimedMessage(new MessageRef(id, id.getBytes(StandardCharsets.UTF_8)), dueAt, 0, new byte[0]);
    }

    @Test
    void aYoungerMessageDoesNotOvertakeOnesHandedBackUntilTheyAreBack() {
        ClaimedMessage first = due(100, "a");
        ClaimedMessage second = due(200, "b");
        order.handedBack(shard, "t", first, 0);
        order.handedBack(shard, "t", second, 0);

        assertTrue(order.overtakes(shard, "t", due(300, "c"), 10), "younger than every message handed back");
        assertFalse(order.overtakes(shard, "t", first, 10), "the oldest coming back goes");
        assertTrue(order.overtakes(shard, "t", due(300, "c"), 10), "the second is still in Redis");
        assertFalse(order.overtakes(shard, "t", second, 10), "the youngest coming back goes");
        assertFalse(order.overtakes(shard, "t", due(300, "c"), 10), "all are back: the line moves on");
    }

    @Test
    void equalDueTimesAreOrderedByMemberBytesAsRedisOrdersThem() {
        order.handedBack(shard, "t", due(100, "m"), 0);
        assertTrue(order.overtakes(shard, "t", due(100, "n"), 1), "same score, greater member: after it in Redis");
        assertFalse(order.overtakes(shard, "t", due(100, "a"), 1), "same score, smaller member: before it");
    }

    @Test
    void otherTargetsAndShardsAreNotHeldBack() {
        order.handedBack(shard, "t", due(100, "a"), 0);
        assertFalse(order.overtakes(shard, "other", due(500, "x"), 1));
        assertFalse(order.overtakes(new OwnedShard(3, 0), "t", due(500, "x"), 1));
    }

    @Test
    void aLineIsForgottenAfterItsTimeSoACancelledMessageHoldsNothingForever() {
        order.handedBack(shard, "t", due(100, "a"), 0);
        assertTrue(order.overtakes(shard, "t", due(500, "x"), FORGET - 1));
        assertFalse(order.overtakes(shard, "t", due(500, "x"), FORGET));
    }
}

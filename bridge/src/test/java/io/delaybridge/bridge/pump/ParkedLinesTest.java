package io.delaybridge.bridge.pump;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.bridge.store.ClaimedMessage;
import io.delaybridge.bridge.store.MessageRef;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ParkedLinesTest {

    private static final long FORGET = 1_000;
    private final ParkedLines lines = new ParkedLines();
    private final OwnedShard shard = new OwnedShard(2, 0);

    private static ClaimedMessage due(long dueAt, String id) {
        return new ClaimedMessage(new MessageRef(id, id.getBytes(StandardCharsets.UTF_8)), dueAt, 0, new byte[0]);
    }

    @Test
    void aMessageGoesOnlyAsTheOldestParkedOfItsLineComingBack() {
        ClaimedMessage first = due(100, "a");
        ClaimedMessage second = due(200, "b");
        lines.parked(shard, "t", second, 5_000, FORGET); // parked before the older one (it was parked again later)
        lines.parked(shard, "t", first, 9_000, FORGET);

        assertEquals(9_000, lines.heldUntil(shard, "t", second, 10), "back first, but the older is still parked");
        assertEquals(9_000, lines.heldUntil(shard, "t", due(300, "c"), 10), "a newly due one waits behind them");
        assertTrue(lines.isParked(shard, "t", first));
        assertFalse(lines.isParked(shard, "t", due(300, "c")));
        assertEquals(ParkedLines.GOES, lines.heldUntil(shard, "t", first, 10), "the oldest coming back goes");
        assertFalse(lines.isParked(shard, "t", first), "and leaves the line");
        assertEquals(ParkedLines.GOES, lines.heldUntil(shard, "t", second, 10), "then the next");
        assertEquals(ParkedLines.GOES, lines.heldUntil(shard, "t", due(300, "c"), 10), "all are back");
        assertEquals(0, lines.size());
    }

    @Test
    void equalDueTimesAreOrderedByMemberBytesAsRedisOrdersThem() {
        lines.parked(shard, "t", due(100, "m"), 500, FORGET);
        lines.parked(shard, "t", due(100, "b"), 600, FORGET);
        assertEquals(600, lines.heldUntil(shard, "t", due(100, "m"), 1), "same score, greater member: after b");
    }

    @Test
    void otherTargetsAndShardsAreNotHeldBack() {
        lines.parked(shard, "t", due(100, "a"), 500, FORGET);
        assertEquals(ParkedLines.GOES, lines.heldUntil(shard, "other", due(500, "x"), 1));
        assertEquals(ParkedLines.GOES, lines.heldUntil(new OwnedShard(3, 0), "t", due(500, "x"), 1));
    }

    @Test
    void aParkedMessageThatNeverComesBackIsForgottenAtItsTime() {
        lines.parked(shard, "t", due(100, "a"), 500, FORGET); // cancelled while parked: never claimed again
        lines.parked(shard, "t", due(200, "b"), 600, FORGET * 2);
        assertEquals(500, lines.heldUntil(shard, "t", due(200, "b"), FORGET - 1));
        assertEquals(ParkedLines.GOES, lines.heldUntil(shard, "t", due(200, "b"), FORGET), "a is forgotten");

        lines.parked(shard, "t", due(300, "c"), 700, FORGET * 3);
        lines.forgetExpired(FORGET * 3 - 1);
        assertEquals(1, lines.size(), "kept until its time");
        lines.forgetExpired(FORGET * 3);
        assertEquals(0, lines.size(), "a line of a shard gone elsewhere is dropped");
    }
}

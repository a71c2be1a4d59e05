package io.delaybridge.bridge.pump;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class AckBatcherTest {

    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long T0 = 5_000_000_000L;

    private final OwnedShard shard = new OwnedShard(3, 0);

    @Test
    void acksWaitHalfALookAheadFromTheOldest() {
        AckBatcher acks = new AckBatcher(100, 1_000);
        assertEquals(Long.MAX_VALUE, acks.nanosUntilDue(T0));
        acks.add(Map.of(shard, List.of(delivered())), T0);
        acks.add(Map.of(shard, List.of(delivered())), T0 + 30 * MS);

        assertEquals(20 * MS, acks.nanosUntilDue(T0 + 30 * MS), "timed from the oldest, not the newest");
        assertTrue(acks.takeDue(false, T0 + 49 * MS).isEmpty());
        Map<OwnedShard, List<Outcome>> due = acks.takeDue(false, T0 + 50 * MS);
        assertEquals(2, due.get(shard).size());
        assertTrue(acks.isEmpty());
        assertEquals(Long.MAX_VALUE, acks.nanosUntilDue(T0 + 50 * MS));
    }

    @Test
    void aBatchsWorthARevokedShardOrStoppingAcksAtOnce() {
        AckBatcher full = new AckBatcher(100, 2);
        full.add(Map.of(shard, List.of(delivered(), delivered())), T0);
        assertEquals(2, full.takeDue(false, T0).get(shard).size());

        AckBatcher revoking = new AckBatcher(100, 1_000);
        OwnedShard leaving = new OwnedShard(4, 0);
        revoking.add(Map.of(leaving, List.of(delivered())), T0);
        assertTrue(revoking.takeDue(false, T0).isEmpty());
        leaving.revoked = true;
        assertEquals(1, revoking.takeDue(false, T0).get(leaving).size());

        AckBatcher stopping = new AckBatcher(100, 1_000);
        stopping.add(Map.of(shard, List.of(delivered())), T0);
        assertEquals(1, stopping.takeDue(true, T0).get(shard).size());
    }

    @Test
    void overdueAcksReportANegativeWait() {
        AckBatcher acks = new AckBatcher(100, 1_000);
        acks.add(Map.of(shard, List.of(delivered())), T0);
        assertEquals(-10 * MS, acks.nanosUntilDue(T0 + 60 * MS));
    }

    private Outcome delivered() {
        return Outcome.delivered(shard, null, 0);
    }
}

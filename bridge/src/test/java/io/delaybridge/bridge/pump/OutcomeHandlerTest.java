package io.delaybridge.bridge.pump;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.bridge.probe.PipelineProbe;
import io.delaybridge.bridge.time.RedisClock;
import io.delaybridge.bridge.time.Time;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** How {@link OutcomeHandler} gathers acks: pure logic over the monotonic times it is given. */
class OutcomeHandlerTest {

    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long T0 = 5_000_000_000L;

    private final OwnedShard shard = new OwnedShard(3, 0);

    @Test
    void acksWaitHalfALookAheadFromTheOldest() {
        OutcomeHandler acks = handler(1_000);
        assertEquals(Long.MAX_VALUE, acks.nanosUntilAcksDue(T0));
        acks.gather(Map.of(shard, List.of(delivered())), T0);
        acks.gather(Map.of(shard, List.of(delivered())), T0 + 30 * MS);

        assertEquals(20 * MS, acks.nanosUntilAcksDue(T0 + 30 * MS), "timed from the oldest, not the newest");
        assertTrue(acks.takeDueAcks(false, T0 + 49 * MS).isEmpty());
        Map<OwnedShard, List<Outcome>> due = acks.takeDueAcks(false, T0 + 50 * MS);
        assertEquals(2, due.get(shard).size());
        assertTrue(acks.takeDueAcks(true, T0 + 50 * MS).isEmpty(), "nothing left");
        assertEquals(Long.MAX_VALUE, acks.nanosUntilAcksDue(T0 + 50 * MS));
    }

    @Test
    void aBatchsWorthARevokedShardOrStoppingAcksAtOnce() {
        OutcomeHandler full = handler(2);
        full.gather(Map.of(shard, List.of(delivered(), delivered())), T0);
        assertEquals(2, full.takeDueAcks(false, T0).get(shard).size());

        OutcomeHandler revoking = handler(1_000);
        OwnedShard leaving = new OwnedShard(4, 0);
        revoking.gather(Map.of(leaving, List.of(delivered())), T0);
        assertTrue(revoking.takeDueAcks(false, T0).isEmpty());
        leaving.revoked = true;
        assertEquals(1, revoking.takeDueAcks(false, T0).get(leaving).size());

        OutcomeHandler stopping = handler(1_000);
        stopping.gather(Map.of(shard, List.of(delivered())), T0);
        assertEquals(1, stopping.takeDueAcks(true, T0).get(shard).size());
    }

    @Test
    void overdueAcksReportANegativeWait() {
        OutcomeHandler acks = handler(1_000);
        acks.gather(Map.of(shard, List.of(delivered())), T0);
        assertEquals(-10 * MS, acks.nanosUntilAcksDue(T0 + 60 * MS));
    }

    /** Acks wait half of a 100 ms look-ahead, or until {@code batchSize} gathered; nothing else is used. */
    private static OutcomeHandler handler(int batchSize) {
        return new OutcomeHandler(
                null,
                new PumpSends(null, null, null),
                new PumpSettings(batchSize, 30_000, 1_000, 1_000, 100),
                null,
                new SendPath(null, null),
                new RedisClock(Time.SYSTEM, () -> 0),
                PipelineProbe.NONE);
    }

    private Outcome delivered() {
        return Outcome.delivered(shard, null, 0);
    }
}

package io.delaybridge.bridge.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class CommitPaceTest {

    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    @Test
    void theFirstCommitIsDueOneIntervalAfterTheStart() {
        CommitPace pace = new CommitPace(50 * MS, 1_000 * MS);

        assertEquals(50 * MS, pace.waitNanos(1_000 * MS));
        assertEquals(20 * MS, pace.waitNanos(1_030 * MS));
        assertEquals(0, pace.waitNanos(1_050 * MS));
    }

    @Test
    void theNextCommitIsDueOneIntervalAfterTheLastStartedNotAfterItEnded() {
        CommitPace pace = new CommitPace(50 * MS, 0);
        pace.started(50 * MS);

        // the commit took 20 ms: the next one waits the 30 ms left of the interval, not a whole interval more
        assertEquals(30 * MS, pace.waitNanos(70 * MS));
        assertEquals(0, pace.waitNanos(100 * MS));
    }

    @Test
    void aCommitThatRanPastTheNextTurnIsFollowedAtOnce() {
        CommitPace pace = new CommitPace(50 * MS, 0);
        pace.started(100 * MS);

        assertEquals(0, pace.waitNanos(180 * MS));
        pace.started(180 * MS);
        assertEquals(49 * MS, pace.waitNanos(181 * MS));
    }
}

package io.delaybridge.bridge.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class CommitPaceTest {

    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    /** The wait, in ms, at the end of a commit from {@code start} to {@code end} ms, interval 50 ms. */
    private static long waitAfter(long start, long end) {
        CommitPace pace = new CommitPace(50 * MS, 0);
        pace.started(start * MS);
        pace.ended(end * MS);
        return pace.waitNanos(end * MS) / MS;
    }

    @Test
    void theFirstCommitIsDueOneIntervalAfterTheStart() {
        CommitPace pace = new CommitPace(50 * MS, 1_000 * MS);

        assertEquals(50 * MS, pace.waitNanos(1_000 * MS));
        assertEquals(20 * MS, pace.waitNanos(1_030 * MS));
        assertEquals(0, pace.waitNanos(1_050 * MS));
    }

    @Test
    void aQuickCommitIsFollowedOneIntervalAfterItStartedNotAfterItEnded() {
        assertEquals(30, waitAfter(50, 70), "20 ms commit: the 30 ms left of the interval");
        assertEquals(45, waitAfter(50, 55));
    }

    @Test
    void theNextCommitWaitsAtLeastAsLongAsTheLastTook() {
        assertEquals(40, waitAfter(50, 90), "a 40 ms commit: 40 ms, past the interval's 10 left");
    }

    @Test
    void aCommitAsLongAsTheIntervalOrLongerIsFollowedAWholeIntervalAfterItsEnd() {
        assertEquals(50, waitAfter(100, 150));
        assertEquals(50, waitAfter(100, 180));
        assertEquals(50, waitAfter(100, 5_100), "never longer: a transaction must commit well within its timeout");
    }
}

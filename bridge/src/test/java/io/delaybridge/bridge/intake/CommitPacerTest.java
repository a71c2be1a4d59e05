package io.delaybridge.bridge.intake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class CommitPacerTest {

    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long T0 = 3_000_000_000L; // monotonic
    private static final long REDIS_NOW = 1_700_000_000_000L; // epoch ms
    private static final long NONE = Long.MAX_VALUE;

    @Test
    void withoutAnIntervalEveryStoredBatchIsCommittedAtOnce() {
        CommitPacer pacer = new CommitPacer(0);
        assertFalse(pacer.paced());
        assertFalse(pacer.mayWait(REDIS_NOW + 3_600_000, false, REDIS_NOW));
        pacer.stored(false, T0);
        assertTrue(pacer.due(T0));
        assertEquals(0, pacer.nanosUntilDue(T0));
    }

    @Test
    void aBatchMayWaitOnlyIfNothingInItIsDueWithinTheIntervalPlusTheGuard() {
        CommitPacer pacer = new CommitPacer(100);
        long margin = 100 + CommitPacer.GUARD_MILLIS;
        assertTrue(pacer.mayWait(REDIS_NOW + margin + 1, false, REDIS_NOW));
        assertFalse(pacer.mayWait(REDIS_NOW + margin, false, REDIS_NOW), "due right at the margin");
        assertFalse(pacer.mayWait(REDIS_NOW - 5_000, false, REDIS_NOW), "already due");
        assertFalse(
                pacer.mayWait(REDIS_NOW + 3_600_000, true, REDIS_NOW),
                "a refused record's deadletter copy would be written twice on a re-read");
        assertFalse(pacer.mayWait(REDIS_NOW + 3_600_000, false, NONE), "Redis' clock unknown");
        assertTrue(pacer.mayWait(NONE, false, NONE), "cancels only: nothing of it is ever delivered");
    }

    @Test
    void waitingOffsetsAreCommittedOneIntervalAfterTheFirstOfThemWasStored() {
        CommitPacer pacer = new CommitPacer(100);
        assertFalse(pacer.due(T0), "nothing waits");
        assertEquals(NONE, pacer.nanosUntilDue(T0));
        pacer.stored(true, T0);
        pacer.stored(true, T0 + 60 * MS); // joins the commit planned for the first
        assertFalse(pacer.due(T0 + 99 * MS));
        assertEquals(40 * MS, pacer.nanosUntilDue(T0 + 60 * MS));
        assertTrue(pacer.due(T0 + 100 * MS));
        pacer.committed();
        assertFalse(pacer.due(T0 + 200 * MS));
        pacer.stored(true, T0 + 200 * MS);
        assertEquals(100 * MS, pacer.nanosUntilDue(T0 + 200 * MS), "a new interval starts with the next batch");
    }

    @Test
    void aBatchThatMayNotWaitBringsTheCommitForward() {
        CommitPacer pacer = new CommitPacer(100);
        pacer.stored(true, T0);
        pacer.stored(false, T0 + 10 * MS);
        assertTrue(pacer.due(T0 + 10 * MS));
    }

    @Test
    void aFailedCommitIsTriedAgainAfterTheRetryTimeOrWithTheNextUrgentBatch() {
        CommitPacer pacer = new CommitPacer(100);
        pacer.stored(false, T0);
        pacer.failed(T0, 50 * MS);
        assertFalse(pacer.due(T0 + 49 * MS));
        assertTrue(pacer.due(T0 + 50 * MS));
        pacer.failed(T0 + 50 * MS, 50 * MS);
        pacer.stored(false, T0 + 60 * MS);
        assertTrue(pacer.due(T0 + 60 * MS));
    }
}

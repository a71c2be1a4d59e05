package io.delaybridge.checker;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class LoadPacerTest {

    private static final long MS = 1_000_000L;

    @Test
    void sendsAtTheRateWhenTheCrashPointsAreDone() {
        LoadPacer pacer = new LoadPacer(100, 8, () -> true, 0);
        for (int n = 0; n < 8; n++) {
            assertEquals(n * 10 * MS, pacer.sendAt(n, n * 10 * MS), "record " + n);
        }
    }

    @Test
    void theLastQuarterTricklesWhileCrashPointsRemainThenGoesOnAtTheRateWithoutABurst() {
        AtomicBoolean done = new AtomicBoolean();
        LoadPacer pacer = new LoadPacer(100, 8, done::get, 0);
        long now = 0;
        for (int n = 0; n < 6; n++) {
            now = pacer.sendAt(n, now);
            assertEquals(n * 10 * MS, now, "record " + n + " at the rate");
        }
        long trickle = 1_000 * MS / LoadPacer.TRICKLE_PER_SECOND;
        now = pacer.sendAt(6, now);
        assertEquals(50 * MS + trickle, now, "record 6 waits a trickle period: the crash points are not done");
        done.set(true);
        assertEquals(now + 10 * MS, pacer.sendAt(7, now), "released: the rate again, from the last send");
    }
}

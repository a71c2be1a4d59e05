package io.delaybridge.bridge.pump;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.bridge.time.Time;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class WakeupsTest {

    private static final long MINUTE = TimeUnit.MINUTES.toNanos(1);

    @Test
    void aSignalGivenWhileAwakeEndsTheNextSleepAtOnceAndOnlyThatOne() {
        Wakeups wakeups = new Wakeups(Time.SYSTEM);
        wakeups.signal();
        long start = System.nanoTime();
        assertTrue(wakeups.sleep(MINUTE, () -> true));
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(30));

        start = System.nanoTime();
        assertTrue(wakeups.sleep(TimeUnit.MILLISECONDS.toNanos(50), () -> true));
        assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(50), "the signal was used up");
    }

    @Test
    void aSignalFromAnotherThreadEndsASleep() {
        Wakeups wakeups = new Wakeups(Time.SYSTEM);
        Thread signaller = new Thread(() -> {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            wakeups.signal();
        });
        signaller.start();
        long start = System.nanoTime();
        assertTrue(wakeups.sleep(MINUTE, () -> true));
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(30));
    }

    @Test
    void aConditionThatNeverHoldsTimesOut() {
        assertFalse(new Wakeups(Time.SYSTEM).awaitUntilTrue(() -> false, TimeUnit.MILLISECONDS.toNanos(20)));
        assertTrue(new Wakeups(Time.SYSTEM).awaitUntilTrue(() -> true, 0));
    }
}

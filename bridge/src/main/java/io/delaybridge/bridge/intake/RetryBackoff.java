package io.delaybridge.bridge.intake;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The intake's wait between two tries of a poll or batch that Kafka or Redis refused: the first wait, doubled after
 * each wait up to the longest, back to the first after a success. A stop cuts a wait short. Intake thread only.
 */
final class RetryBackoff {

    private final long firstMillis;
    private final long maxMillis;
    private final CountDownLatch stopRequested;
    private long nextMillis;

    RetryBackoff(Duration first, Duration max, CountDownLatch stopRequested) {
        this.firstMillis = first.toMillis();
        this.maxMillis = max.toMillis();
        this.stopRequested = stopRequested;
        this.nextMillis = firstMillis;
    }

    /** The next wait, in ms. */
    long nextMillis() {
        return nextMillis;
    }

    void succeeded() {
        nextMillis = firstMillis;
    }

    /** Waits the next wait (less if a stop is requested); false if the thread was interrupted. */
    boolean sleep() {
        try {
            if (!stopRequested.await(nextMillis, TimeUnit.MILLISECONDS)) {
                nextMillis = Math.min(nextMillis * 2, maxMillis);
            }
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}

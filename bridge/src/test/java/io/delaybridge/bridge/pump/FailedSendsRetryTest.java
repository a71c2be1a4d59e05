package io.delaybridge.bridge.pump;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.delaybridge.bridge.delivery.HeldBackException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.Test;

/** When a failed send is tried again ({@link FailedSends#retryAfter}): the shipped policy, 10 attempts, 1 s to 5 min. */
class FailedSendsRetryTest {

    private static final RetryPolicy SHIPPED = new ExponentialBackoff(10, 1_000, 300_000);

    /** What exactly once's transactions hold back: a shard opened again, a send in a transaction, a sibling's abort. */
    private static final class HeldBack extends HeldBackException {
        HeldBack() {
            super("the transactions of shard 3 are being opened again");
        }
    }

    @Test
    void aSendHeldBackByExactlyOnceWaitsTheFirstBackoffWhateverItsAttempt() {
        for (int attempt : new int[] {1, 2, 7, 9, 10, 25}) {
            assertEquals(1_000, FailedSends.retryAfter(SHIPPED, new HeldBack(), attempt), "attempt " + attempt);
        }
    }

    @Test
    void aSendItsTargetRefusedWaitsLongerEachAttemptThenGoesToTheDeadletterTopic() {
        assertEquals(1_000, FailedSends.retryAfter(SHIPPED, new TimeoutException("t"), 1));
        assertEquals(64_000, FailedSends.retryAfter(SHIPPED, new TimeoutException("t"), 7));
        assertEquals(-1, FailedSends.retryAfter(SHIPPED, new TimeoutException("t"), 10), "attempts spent");
        assertEquals(-1, FailedSends.retryAfter(SHIPPED, new RecordTooLargeException("big"), 1), "permanent");
    }
}

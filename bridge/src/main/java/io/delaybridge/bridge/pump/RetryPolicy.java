package io.delaybridge.bridge.pump;

/** Decides what happens after a failed delivery attempt. */
public interface RetryPolicy {

    /** The most attempts a message gets; after the last one fails it goes to the deadletter topic. */
    int maxAttempts();

    /** How long to wait before attempt {@code failedAttempt + 1}. */
    long backoffMillis(int failedAttempt);

    default boolean exhausted(int failedAttempt) {
        return failedAttempt >= maxAttempts();
    }
}

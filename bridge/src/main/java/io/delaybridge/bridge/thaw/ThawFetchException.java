package io.delaybridge.bridge.thaw;

/**
 * Kafka did not answer the thaw in time (the intake's reads, a deadletter send): transient, the hour is thawed again
 * later; nothing is lost.
 */
final class ThawFetchException extends RuntimeException {

    ThawFetchException(String message) {
        super(message);
    }

    ThawFetchException(String message, Throwable cause) {
        super(message, cause);
    }
}

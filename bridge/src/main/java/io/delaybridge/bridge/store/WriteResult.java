package io.delaybridge.bridge.store;

/** What one {@link WriteOp} did. */
public enum WriteResult {
    /** A new pending message. */
    STORED,
    /** Replaced a pending message with the same id. */
    REPLACED,
    /** The same intake record was already stored (a re-read after a crash): nothing changed. */
    DUPLICATE,
    /** A pending message was cancelled. */
    CANCELLED,
    /** A cancel found no pending message with that id (unknown, already delivered, or in flight). */
    NOT_FOUND
}

package io.delaybridge.bridge.store;

/** What one {@link WriteOp} did. */
public enum WriteResult {
    /** A new pending message. */
    STORED,
    /** Replaced a pending message with the same id. */
    REPLACED,
    /** The same intake record was already stored (a re-read after a crash): nothing changed. */
    DUPLICATE,
    /**
     * A message was cancelled. If it was being delivered at that moment (claimed, not yet acknowledged), the send under
     * way may still reach the target, but the message is never retried or delivered again.
     */
    CANCELLED,
    /** A cancel found no message with that id (unknown, already delivered, or already cancelled). */
    NOT_FOUND,
    /**
     * A schedule dropped because a cancel of its id, from a record at least as new, was processed before it (the two
     * came in on different partitions and one lagged, or the schedule was read again after a crash).
     */
    ALREADY_CANCELLED,
    /**
     * A schedule dropped because the message stored under its id comes from a newer intake record: a later timestamp,
     * or the same timestamp and a higher offset of the same partition (the newer came in on another partition and was
     * read first, or this record is read again after a crash). The newer version stays as it is.
     */
    SUPERSEDED
}

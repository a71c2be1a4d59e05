package io.delaybridge.bridge.store;

/** One intake operation on the store. */
public sealed interface WriteOp {

    /** The message id ({@code delay-id}, or the default {@code <topic>-<partition>-<offset>}). */
    String id();

    /**
     * Store a message due at {@code dueAt} (epoch ms). Idempotent on (id, origin): the same intake record stored twice
     * is one message; a different record with the same id replaces the pending one (a reschedule).
     */
    record Schedule(String id, long dueAt, String origin, byte[] envelope) implements WriteOp {}

    /** Remove the pending message with this id, wherever it is stored. */
    record Cancel(String id) implements WriteOp {}
}

package io.delaybridge.bridge.store;

import io.delaybridge.schemas.IntakeOrigin;

/** One intake operation on the store. */
public sealed interface WriteOp {

    /** A record timestamp that is not known: such a schedule is never suppressed, such a cancel leaves no memory. */
    long NO_TIMESTAMP = Long.MIN_VALUE;

    /** The message id ({@code delay-id}, or the default {@code <topic>-<partition>-<offset>}). */
    String id();

    /**
     * Store a message due at {@code dueAt} (epoch ms). Idempotent on (id, origin): the same intake record stored twice
     * is one message; a different record with the same id replaces the pending one (a reschedule), unless it is older
     * than the pending one ({@link WriteResult#SUPERSEDED}: an earlier timestamp, or the same timestamp and a lower
     * offset of the same intake partition). A remembered cancel of the id whose record is not older than
     * {@code timestamp} wins: the schedule is dropped ({@link WriteResult#ALREADY_CANCELLED}).
     *
     * <p>With {@code far} set, the record waits in the far tier ({@link FarStore}): the store keeps its intake
     * position ({@code origin}) and due time, not its envelope (which may be null), and the thaw stores it hot ahead
     * of its due time. The same rules of replacement and cancel hold in both tiers.
     *
     * @param timestamp the intake record's timestamp, or {@link #NO_TIMESTAMP}
     */
    record Schedule(String id, long dueAt, IntakeOrigin origin, byte[] envelope, long timestamp, boolean far)
            implements WriteOp {
        public Schedule(String id, long dueAt, IntakeOrigin origin, byte[] envelope, long timestamp) {
            this(id, dueAt, origin, envelope, timestamp, false);
        }

        public Schedule(String id, long dueAt, IntakeOrigin origin, byte[] envelope) {
            this(id, dueAt, origin, envelope, NO_TIMESTAMP, false);
        }
    }

    /**
     * Remove the pending message with this id, wherever it is stored, and remember the cancel (by its record's
     * {@code timestamp}) so that a schedule of the same id from an older record, read later because it came in on a
     * lagging partition or is read again after a crash, is dropped. Remembered cancels older than
     * {@code forgetBefore} are forgotten.
     */
    record Cancel(String id, long timestamp, long forgetBefore) implements WriteOp {
        public Cancel(String id) {
            this(id, NO_TIMESTAMP, NO_TIMESTAMP);
        }
    }
}

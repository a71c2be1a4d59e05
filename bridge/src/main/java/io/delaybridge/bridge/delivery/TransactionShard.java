package io.delaybridge.bridge.delivery;

import java.util.function.LongSupplier;

/**
 * What the instance's transactions keep of one shard ({@link InstanceTransaction}): what its committed transactions
 * delivered ({@link DeliveredIds}), its records of the delivered log ({@link LoggedRecords}), its intake floor, in which session of the instance's producers it was opened, and
 * where the next read of its delivered log starts. Its fields are guarded by the instance transaction's lock, but for
 * {@link #delivered} and {@link #intakeFloor}, which are safe to share.
 */
final class TransactionShard {

    /** Not opened in any session of the producers. */
    static final long CLOSED = -1;

    final int shard;
    /** What committed transactions delivered and must be remembered: acked, not sent again, if claimed. */
    final DeliveredIds delivered = new DeliveredIds();
    /** The shard's records of the delivered log since it was opened: what the next one lists. */
    final LoggedRecords logged = new LoggedRecords();
    /** The intake floor the shard's records of the delivered log hold. */
    final IntakeFloor intakeFloor;

    /** The session of the instance's producers in which the shard was opened; {@link #CLOSED} if none. */
    long session = CLOSED;
    /** Where the shard's next read of the delivered log starts; below 0: from its last committed record. */
    long logFrom = -1;

    TransactionShard(int shard, LongSupplier intakeCommitted) {
        this.shard = shard;
        this.intakeFloor = new IntakeFloor(shard, intakeCommitted);
    }
}

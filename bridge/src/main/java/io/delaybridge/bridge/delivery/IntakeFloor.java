package io.delaybridge.bridge.delivery;

import java.util.Map;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * A shard's intake floor: the highest offset of its intake partition known committed when its last transaction
 * committed, written into every record of the delivered log ({@link DeliveredRecord}). It only grows: it starts from
 * the last committed record (a new owner carries the old one's on), and each transaction raises it to the group's
 * committed offset as last read, or to the offset the transaction itself carries. The intake reads an assigned
 * partition from no lower. Raised under the shard's lock.
 */
final class IntakeFloor {

    private final int shard;
    /** The group's committed offset of the shard's intake partition as last read (-1: unknown). */
    private final LongSupplier groupCommitted;

    /** Read by {@link #passed} on the commit thread without the shard's lock: it only grows. */
    private volatile long floor = -1;

    IntakeFloor(int shard, LongSupplier groupCommitted) {
        this.shard = shard;
        this.groupCommitted = groupCommitted;
    }

    /** A committed record of the delivered log held {@code recorded}: the last one read at open, or this owner's. */
    void recorded(long recorded) {
        floor = Math.max(floor, recorded);
    }

    /** The floor of the last committed record (-1: none yet). */
    long value() {
        return floor;
    }

    /** The floor for the record of a transaction carrying {@code carry} (null: no intake offsets). */
    long forRecord(TransactionOffsets.Carry carry) {
        long next = Math.max(floor, groupCommitted.getAsLong());
        if (carry != null) {
            for (Map.Entry<TopicPartition, OffsetAndMetadata> e :
                    carry.offsets().entrySet()) {
                if (e.getKey().partition() == shard) {
                    next = Math.max(next, e.getValue().offset());
                }
            }
        }
        return next;
    }

    /**
     * Whether a committed record of the delivered log holds a floor above the intake record at {@code offset} of the
     * shard's partition: no owner of the shard reads it again, whatever the group coordinator answers later.
     */
    boolean passed(long offset) {
        return floor > offset;
    }
}

package io.delaybridge.bridge.store;

/**
 * The intake's position in one partition, written to the store behind a write batch: the store holds every record of
 * intake partition {@code partition} below {@code next}. Written in the same pipeline as the batch and after it (into
 * the partition's home shard, or on a Redis Cluster into every shard), so Redis' replication stream carries it after
 * the batch's writes: a replica that has the mark has every write of the batch on its node before it.
 *
 * @param partition the intake partition
 * @param expected  the position the intake believes the store holds already (the end of the partition's previous batch
 *                  in this run, or its committed offset), or {@link #UNKNOWN}: a stored position below it means the
 *                  store lost writes, and the mark fails the batch with {@link StoreGapException}
 * @param next      the last offset of the batch plus one
 */
public record PositionMark(int partition, long expected, long next) {

    /** No expectation: the mark is written, never checked. */
    public static final long UNKNOWN = -1;

    public PositionMark {
        if (partition < 0 || next < 0 || expected < UNKNOWN) {
            throw new IllegalArgumentException("position mark of partition " + partition + ": expected " + expected
                    + ", next " + next + " (partition and next must be >= 0)");
        }
    }
}

package io.delaybridge.bridge.store;

/**
 * One record of the far tier: where it waits in the intake topic's log, and when it is due (epoch ms). Redis keeps
 * only this (docs/redis-store.md, "The far tier"); the record itself is read back from the intake when it is thawed.
 */
public record FarEntry(int partition, long offset, long dueAt) {

    /** The width of a due-time bucket: the far tier keeps one string of entries per shard and hour. */
    public static final long HOUR_MILLIS = 3_600_000L;

    /** The largest offset an entry holds (6 bytes). */
    public static final long MAX_OFFSET = (1L << 48) - 1;

    public FarEntry {
        if (partition < 0 || partition > 0xFFFF) {
            throw new IllegalArgumentException(
                    "far entry: intake partition " + partition + " does not fit the entry's 2 bytes (0..65535)");
        }
        if (offset < 0 || offset > MAX_OFFSET) {
            throw new IllegalArgumentException("far entry: offset " + offset + " does not fit the entry's 6 bytes");
        }
        if (dueAt < 0) {
            throw new IllegalArgumentException("far entry: due time " + dueAt + " is before 1970");
        }
    }

    /** The hour the entry is due in: epoch ms / {@link #HOUR_MILLIS}. */
    public long hour() {
        return hourOf(dueAt);
    }

    /** The hour a record due at {@code dueAt} (epoch ms) is due in, as the far index names it. */
    public static long hourOf(long dueAt) {
        return Math.floorDiv(dueAt, HOUR_MILLIS);
    }
}

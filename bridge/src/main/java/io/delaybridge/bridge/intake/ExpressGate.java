package io.delaybridge.bridge.intake;

import io.delaybridge.bridge.time.RedisClock;
import java.util.HashSet;
import java.util.Set;

/**
 * Which intake records may take the express path (delivered straight from the intake to their target, never written
 * to Redis) and which park in the store as before. Holds no connection.
 *
 * <p>A record takes the express path only if all of these hold when it is read:
 * <ul>
 *   <li>it is a schedule with its default id (no {@code delay-id} header): an explicit id may replace or be replaced
 *       by a pending message, which only the store can decide, so explicit ids and cancels always park;
 *   <li>it is due at most {@code windowMillis} after the latest time Redis' clock can show ({@link RedisClock#atMost};
 *       an unknown clock parks everything);
 *   <li>no earlier record of its partition in the same poll parked: records of one partition keep their order, so
 *       once one parks the rest of that partition's poll parks too;
 *   <li>the express buffer has room for it, in records and in bytes: when it is full records park, so the heap never
 *       grows with a backlog.
 * </ul>
 * A record admitted holds its place in the buffer until it is {@link #released} (delivered, parked after a failed
 * first send, or dropped to be read again). {@link #released} may be called on any thread (send callbacks), the rest on
 * the intake thread.
 */
final class ExpressGate {

    /** {@code windowMillis} set to this turns the express path off. */
    static final long OFF = -1;

    private final long windowMillis;
    private final int maxRecords;
    private final long maxBytes;
    private final Set<Integer> parkedInPoll = new HashSet<>();
    private int heldRecords;
    private long heldBytes;

    ExpressGate(long windowMillis, int maxRecords, long maxBytes) {
        this.windowMillis = windowMillis;
        this.maxRecords = maxRecords;
        this.maxBytes = maxBytes;
    }

    /** A new poll begins: which partitions parked in the last one no longer matters (its records are written). */
    void beginPoll() {
        parkedInPoll.clear();
    }

    /**
     * Decides for the next schedule of {@code partition} (records of a partition in offset order); a record admitted
     * takes {@code bytes} of the buffer. A cancel is not asked about: it is written to the store, so the checks that
     * follow it in the poll's pipeline see it, and it does not stop the express path of its partition.
     *
     * @param id             the schedule's id
     * @param defaultId      the record's default id ({@code IntakeParser.defaultId})
     * @param dueAt          the schedule's due time (epoch ms on Redis' clock)
     * @param redisNowAtMost the latest time Redis' clock can show now (epoch ms), MAX_VALUE if unknown
     * @return true for the express path, false to park
     */
    synchronized boolean admit(
            int partition, String id, String defaultId, long dueAt, long bytes, long redisNowAtMost) {
        boolean express = windowMillis != OFF
                && !parkedInPoll.contains(partition)
                && id.equals(defaultId)
                && redisNowAtMost != Long.MAX_VALUE
                && dueAt <= redisNowAtMost + windowMillis
                && heldRecords < maxRecords
                && heldBytes + bytes <= maxBytes;
        if (!express) {
            parkedInPoll.add(partition);
            return false;
        }
        heldRecords++;
        heldBytes += bytes;
        return true;
    }

    /**
     * The next record of {@code partition} parks for a reason the gate does not see (its id is named by a cancel or an
     * explicit id in the same poll): the rest of the partition's poll parks too.
     */
    void park(int partition) {
        parkedInPoll.add(partition);
    }

    /** An admitted record left the buffer: delivered, parked after its first send failed, or dropped. */
    synchronized void released(long bytes) {
        heldRecords--;
        heldBytes -= bytes;
    }

    synchronized int heldRecords() {
        return heldRecords;
    }

    synchronized long heldBytes() {
        return heldBytes;
    }
}

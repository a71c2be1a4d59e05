package io.delaybridge.checker;

import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * Where the fault {@code delete-far} moves an intake partition's log start, as pure arithmetic over what the campaign
 * knows: the partition's log start, the group's committed offset (every record below it was read and stored, hot or
 * far, so deleting below it never deletes a record the intake has yet to read), the records of the plan the broker
 * acknowledged there (the deletion stops at the first offset not acknowledged yet), and the offsets the far index
 * holds for the partition right now.
 */
final class DeletionPoint {

    private DeletionPoint() {}

    /**
     * One partition's candidate: deleting below {@code deleteBefore} takes {@code farInPlan} acknowledged records due
     * later than the far horizon (well beyond the hot window: far, unless the thaw already stored them hot) and
     * {@code farInIndex} entries the far index still holds (those the thaw will find gone).
     */
    record Candidate(int partition, long logStart, long deleteBefore, int farInPlan, int farInIndex) {

        boolean deletes() {
            return deleteBefore > logStart;
        }
    }

    /** An acknowledged record of the partition: its offset and when it is due. */
    record Acked(long offset, long dueAt) {}

    /**
     * The candidate of one partition.
     *
     * @param acked           the partition's acknowledged records, in any order
     * @param farIndexOffsets the offsets of the partition the far index holds, in any order
     * @param farHorizon      records due after this (now + hot window + a margin) count as waiting far
     */
    static Candidate candidate(
            int partition,
            long logStart,
            long committed,
            Collection<Acked> acked,
            long[] farIndexOffsets,
            long farHorizon) {
        long[] offsets = acked.stream().mapToLong(Acked::offset).sorted().toArray();
        long prefixEnd = logStart; // the first offset at or above the log start not acknowledged
        for (long offset : offsets) {
            if (offset == prefixEnd) {
                prefixEnd++;
            } else if (offset > prefixEnd) {
                break;
            }
        }
        long deleteBefore = Math.max(logStart, Math.min(committed, prefixEnd));
        int farInPlan = 0;
        for (Acked record : acked) {
            if (record.offset() >= logStart && record.offset() < deleteBefore && record.dueAt() > farHorizon) {
                farInPlan++;
            }
        }
        int farInIndex = 0;
        for (long offset : farIndexOffsets) {
            if (offset >= logStart && offset < deleteBefore) {
                farInIndex++;
            }
        }
        return new Candidate(partition, logStart, deleteBefore, farInPlan, farInIndex);
    }

    /**
     * The partition to delete in: the one whose deletion takes the most far index entries, among those where the plan
     * has records due beyond the far horizon below the point; empty if none has such a record.
     */
    static Optional<Candidate> choose(List<Candidate> candidates) {
        return candidates.stream()
                .filter(c -> c.deletes() && c.farInPlan() > 0)
                .max(java.util.Comparator.comparingInt(Candidate::farInIndex)
                        .thenComparingInt(Candidate::farInPlan)
                        .thenComparing(Candidate::partition, java.util.Comparator.reverseOrder()));
    }
}

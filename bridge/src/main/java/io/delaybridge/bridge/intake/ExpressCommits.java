package io.delaybridge.bridge.intake;

import io.delaybridge.bridge.time.Time;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Stored polls whose express records are still on their way: a poll's offsets may be committed only once Redis holds
 * its parked records and every express record of it has settled (delivered, or parked after its first send failed).
 * Polls settle in any order; their offsets are handed out strictly in poll order, so a commit never passes a record
 * that is neither delivered nor stored. Holds no connection. {@link #settled} may be called on any thread (producer
 * callbacks), the rest on the intake thread.
 */
final class ExpressCommits {

    /** One stored poll and how many of its express records have not settled. */
    static final class Poll {
        private final ExpressCommits owner;
        private final Map<TopicPartition, OffsetAndMetadata> commit;
        /** With exactly once: the per-partition rule its transactions commit by; else null. */
        private final ExpressOffsets offsets;

        private int unsettled;

        private Poll(
                ExpressCommits owner,
                Map<TopicPartition, OffsetAndMetadata> commit,
                int unsettled,
                ExpressOffsets offsets) {
            this.owner = owner;
            this.commit = commit;
            this.unsettled = unsettled;
            this.offsets = offsets;
        }

        /** One express record of this poll settled (any thread). */
        void settle() {
            owner.settled(this);
        }

        /**
         * An express record of {@code partition} was abandoned (any thread): its shard has another owner, which reads
         * it again. The poll stops waiting for it, but no pending poll commits {@code partition} any more (that would
         * pass the record); with exactly once its partition's rule keeps it unsettled until the partition is forgotten.
         */
        void abandon(int partition) {
            owner.abandoned(this, partition);
        }

        /** The express record at {@code offset} of {@code partition} settled (any thread). */
        void settle(int partition, long offset) {
            if (offsets != null) {
                offsets.settled(partition, offset);
            }
            owner.settled(this);
        }
    }

    private final ArrayDeque<Poll> polls = new ArrayDeque<>();
    private final Time time;

    ExpressCommits(Time time) {
        this.time = time;
    }

    /** A poll is stored; {@code expressRecords} of it are on the express path. */
    synchronized Poll add(Map<TopicPartition, OffsetAndMetadata> commit, int expressRecords) {
        return add(commit, expressRecords, null);
    }

    /** As {@link #add(Map, int)}; settlements also go to {@code offsets} (exactly once), if not null. */
    synchronized Poll add(Map<TopicPartition, OffsetAndMetadata> commit, int expressRecords, ExpressOffsets offsets) {
        Poll poll = new Poll(this, new HashMap<>(commit), expressRecords, offsets);
        polls.add(poll);
        return poll;
    }

    /** One express record of {@code poll} settled. */
    synchronized void settled(Poll poll) {
        if (poll.unsettled <= 0) {
            throw new IllegalStateException("more express records settled than the poll held");
        }
        poll.unsettled--;
        notifyAll();
    }

    /**
     * An express record of {@code partition} in {@code poll} was abandoned: no poll taken from now on commits that
     * partition, and the poll settles as if the record had.
     */
    synchronized void abandoned(Poll poll, int partition) {
        for (Poll pending : polls) {
            pending.commit.keySet().removeIf(p -> p.partition() == partition);
        }
        settled(poll);
    }

    /**
     * Takes the offsets of the leading polls that have settled, merged (a later poll's offset of a partition is the
     * higher one); empty if the oldest poll has not settled.
     */
    synchronized Map<TopicPartition, OffsetAndMetadata> takeSettled() {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        while (!polls.isEmpty() && polls.peek().unsettled == 0) {
            offsets.putAll(polls.poll().commit);
        }
        return offsets;
    }

    /** Whether the oldest poll has settled: {@link #takeSettled} would hand out offsets. */
    synchronized boolean oldestSettled() {
        return !polls.isEmpty() && polls.peek().unsettled == 0;
    }

    /** Polls not yet taken. */
    synchronized int size() {
        return polls.size();
    }

    /**
     * Waits until every poll has settled (before partitions move away, so their next owner does not deliver the
     * express records again), at most {@code timeoutMillis}; returns whether they have.
     */
    synchronized boolean awaitAllSettled(long timeoutMillis) throws InterruptedException {
        long deadline = time.nanoseconds() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (polls.stream().anyMatch(p -> p.unsettled > 0)) {
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - time.nanoseconds());
            if (left <= 0) {
                return false;
            }
            wait(left);
        }
        return true;
    }

    /** Forgets every poll: their records are read again (after a failure, or partitions lost). */
    synchronized void clear() {
        polls.clear();
        notifyAll();
    }
}

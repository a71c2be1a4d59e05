package io.delaybridge.bridge.intake;

import io.delaybridge.bridge.time.Time;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The intake's commit rule, in one place: a poll's offsets are committed once its records are stored, its refused
 * ones deadlettered and its express ones settled (delivered, or parked after a failed first send), in poll order.
 *
 * <p>{@link #stored} is told when the first two hold; the express records of the poll settle on the handle it returns
 * ({@link ExpressCommits.Poll#settle}, any thread). A poll with nothing on the express path and nothing before it
 * waiting goes to the {@link OffsetCommitter} at once (which may pace it); otherwise its offsets
 * wait in {@link ExpressCommits} until every poll before it settled, and are committed at once then. One per
 * consumer; the intake thread calls it, except for the settlements.
 */
final class PollCommits {

    private static final Logger LOG = LoggerFactory.getLogger(PollCommits.class);
    /** How often the intake looks for settled polls while some wait. */
    private static final Duration SETTLED_POLL = Duration.ofMillis(5);

    private final OffsetCommitter committer;
    private final ExpressCommits settling;
    /** With exactly once: the offsets that shard transactions commit with express records; else null. */
    private final ExpressOffsets offsets;

    PollCommits(OffsetCommitter committer, Time time) {
        this(committer, null, time);
    }

    /**
     * With {@code offsets} (exactly once), a partition's offsets also commit in the transactions that deliver its
     * express records, and the committer's plain commits never go below them ({@link ExpressOffsets}).
     */
    PollCommits(OffsetCommitter committer, ExpressOffsets offsets, Time time) {
        this.committer = committer;
        this.settling = new ExpressCommits(time);
        this.offsets = offsets;
        committer.carriedBy(offsets);
    }

    /**
     * The poll's records are stored and its refused ones deadlettered; returns the handle its express records settle
     * on (null if it has none).
     */
    ExpressCommits.Poll stored(IntakePoll poll) {
        if (offsets != null) {
            offsets.group(committer.groupMetadata()); // before its express records are sent
            offsets.stored(poll);
        }
        if (poll.express().isEmpty() && settling.size() == 0) {
            committer.stored(poll);
            return null;
        }
        return settling.add(poll.commit(), poll.express().size(), offsets);
    }

    /** Whether settled offsets wait for their commit (the loop then completes the batch in flight first). */
    boolean settledWaiting() {
        return settling.oldestSettled();
    }

    /** Hands the offsets of the leading settled polls to the committer and commits what is due. */
    void commitIfDue() {
        if (offsets != null) {
            offsets.group(committer.groupMetadata()); // a rebalance in the last poll changed the generation
        }
        Map<TopicPartition, OffsetAndMetadata> offsets = settling.takeSettled();
        if (!offsets.isEmpty()) {
            committer.settled(offsets);
        }
        committer.commitIfDue();
    }

    /** Nanoseconds until pending offsets are to be committed: 0 if now, MAX_VALUE if none wait. */
    long nanosUntilCommit(long nowNanos) {
        return committer.nanosUntilCommit(nowNanos);
    }

    /** How long the next poll may wait: until a paced commit is due, and briefly while polls are settling. */
    Duration pollTimeout() {
        Duration timeout = committer.pollTimeout();
        return settling.size() > 0 && timeout.compareTo(SETTLED_POLL) > 0 ? SETTLED_POLL : timeout;
    }

    /**
     * Before partitions move away or the intake stops: waits (bounded) until every express record sent settled, so
     * that the commit covers what was delivered and the next owner does not deliver it again.
     */
    void settleAll(long timeoutMillis) {
        if (offsets != null) {
            offsets.group(committer.groupMetadata()); // inside a rebalance: the generation the broker checks now
        }
        try {
            if (!settling.awaitAllSettled(timeoutMillis)) {
                LOG.warn(
                        "Express records still unsettled after {} ms; their offsets are not committed, so whoever "
                                + "reads those partitions next may deliver them again",
                        timeoutMillis);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Map<TopicPartition, OffsetAndMetadata> offsets = settling.takeSettled();
        if (!offsets.isEmpty()) {
            committer.settled(offsets);
        }
    }

    /** Commits what is stored of partitions that move away, so that their next owner does not read it again. */
    void commitBeforeHandOver(Collection<TopicPartition> partitions) {
        committer.commitBeforeHandOver(partitions);
        if (offsets != null) {
            offsets.forget(partitions);
        }
    }

    /** Partitions lost without a hand-over, or read again from a gap: their pending offsets go. */
    void forget(Collection<TopicPartition> partitions) {
        committer.forget(partitions);
        if (offsets != null) {
            offsets.forget(partitions);
        }
    }

    /**
     * Lets everything go without committing (the group fenced this member): offsets waiting, and the offsets of express
     * records still settling; the next owner reads those records again.
     */
    void clear() {
        committer.clear();
        settling.clear();
        if (offsets != null) {
            offsets.clear();
        }
    }
}

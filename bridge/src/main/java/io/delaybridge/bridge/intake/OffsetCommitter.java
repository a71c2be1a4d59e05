package io.delaybridge.bridge.intake;

import io.delaybridge.bridge.errors.Failures;
import io.delaybridge.bridge.time.RedisClock;
import io.delaybridge.bridge.time.Time;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits the offsets of polls that Redis holds: at once or paced ({@link CommitPacer}), and before partitions move
 * away. A commit that fails leaves its offsets pending, to go with the next one: reading those records again would
 * store messages delivered and deleted meanwhile a second time. Intake thread only.
 */
final class OffsetCommitter {

    private static final Logger LOG = LoggerFactory.getLogger(OffsetCommitter.class);

    private final Consumer<byte[], byte[]> consumer;
    private final IntakeMetrics metrics;
    private final Duration pollTimeout;
    /** Offsets of batches that Redis holds and whose commit has not succeeded yet. */
    private final Map<TopicPartition, OffsetAndMetadata> uncommitted = new HashMap<>();
    /** When {@link #uncommitted} is to be committed. */
    private final CommitPacer pacer;
    /** The latest Redis' clock can show, for {@link #pacer}. */
    private final RedisClock redisClock;

    private final Time time;
    /** With exactly once: transactions commit offsets too, and commits here never go below theirs; else null. */
    private ExpressOffsets transactions;

    OffsetCommitter(
            Consumer<byte[], byte[]> consumer,
            IntakeMetrics metrics,
            Duration commitInterval,
            Duration pollTimeout,
            RedisClock redisClock,
            Time time) {
        this.time = time;
        this.redisClock = redisClock;
        this.consumer = consumer;
        this.metrics = metrics;
        this.pollTimeout = pollTimeout;
        this.pacer = new CommitPacer(commitInterval.toMillis());
    }

    /** Exactly once: commits go through {@code offsets}, which keeps them from going below a transaction's. */
    void carriedBy(ExpressOffsets offsets) {
        this.transactions = offsets;
    }

    /** The consumer's group metadata now, for transactions that commit its offsets. */
    ConsumerGroupMetadata groupMetadata() {
        return consumer.groupMetadata();
    }

    /** A poll is stored (and its refused records deadlettered): its offsets are committed now or paced. */
    void stored(IntakePoll poll) {
        uncommitted.putAll(poll.commit());
        pacer.stored(offsetsMayWait(poll), time.nanoseconds());
    }

    /**
     * Offsets of polls whose express records settled (delivered, or parked after a failed first send) and whose
     * parked records Redis holds: committed at once, as they hold records that were due.
     */
    void settled(Map<TopicPartition, OffsetAndMetadata> offsets) {
        uncommitted.putAll(offsets);
        pacer.stored(false, time.nanoseconds());
    }

    /** Nanoseconds until the pending offsets are to be committed: 0 if now, MAX_VALUE if none wait. */
    long nanosUntilCommit(long nowNanos) {
        return uncommitted.isEmpty() ? Long.MAX_VALUE : pacer.nanosUntilDue(nowNanos);
    }

    /** The poll's timeout, shortened so that offsets waiting for their commit are committed in time. */
    Duration pollTimeout() {
        long untilCommit = nanosUntilCommit(time.nanoseconds());
        return untilCommit < pollTimeout.toNanos() ? Duration.ofNanos(untilCommit) : pollTimeout;
    }

    /** Whether the offsets of a stored poll may wait for the next paced commit (no record of it is due soon). */
    private boolean offsetsMayWait(IntakePoll poll) {
        if (!pacer.paced() || poll.refused() || poll.earliestDueAt() == Long.MAX_VALUE) {
            return pacer.mayWait(poll.earliestDueAt(), poll.refused(), Long.MAX_VALUE);
        }
        long redisNowAtMost = redisClock.atMostNow(
                e -> LOG.debug("Reading Redis' clock failed; committing at once: {}", Failures.describe(e)));
        return redisNowAtMost != Long.MAX_VALUE && pacer.mayWait(poll.earliestDueAt(), false, redisNowAtMost);
    }

    /** Commits the offsets of stored polls if their commit is due. */
    void commitIfDue() {
        if (uncommitted.isEmpty()) {
            pacer.committed();
        } else if (pacer.due(time.nanoseconds())) {
            commitStored();
        }
    }

    /** Commits the offsets of stored polls; on failure they stay pending (the records are not read again). */
    private void commitStored() {
        Map<TopicPartition, OffsetAndMetadata> owned = new HashMap<>(uncommitted);
        owned.keySet().retainAll(consumer.assignment());
        uncommitted.keySet().retainAll(owned.keySet());
        if (owned.isEmpty()) {
            pacer.committed();
            return;
        }
        try {
            commitSync(owned);
            owned.forEach(uncommitted::remove);
            metrics.commits.mark();
            if (uncommitted.isEmpty()) {
                pacer.committed();
            }
        } catch (WakeupException | FencedInstanceIdException e) {
            throw e;
        } catch (RuntimeException e) {
            pacer.failed(time.nanoseconds(), pollTimeout.toNanos());
            // RebalanceInProgressException: the next poll() completes the rebalance; do not back off, or the group
            // cannot settle. Anything else (coordinator away): the offsets stay pending and go with the next commit.
            LOG.info("Committing offsets of stored intake records is deferred: {}", Failures.describe(e));
        }
    }

    /** Commits what Redis holds of partitions that move away, so that their next owner does not read it again. */
    void commitBeforeHandOver(Collection<TopicPartition> partitions) {
        Map<TopicPartition, OffsetAndMetadata> leaving = new HashMap<>(uncommitted);
        leaving.keySet().retainAll(partitions);
        uncommitted.keySet().removeAll(partitions);
        if (leaving.isEmpty()) {
            return;
        }
        try {
            commitSync(leaving);
        } catch (WakeupException e) {
            throw e;
        } catch (RuntimeException e) {
            LOG.warn(
                    "Could not commit stored offsets {} of revoked partitions; their next owner reads those "
                            + "records again: {}",
                    leaving,
                    Failures.describe(e));
        }
    }

    private void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets) {
        if (transactions == null) {
            consumer.commitSync(offsets);
        } else {
            transactions.commitPlain(offsets, consumer::commitSync);
        }
    }

    /** Partitions lost without a hand-over: their pending offsets go (the new owner reads them again; stored once). */
    void forget(Collection<TopicPartition> partitions) {
        uncommitted.keySet().removeAll(partitions);
    }

    /** The intake stops for good: nothing more is committed. */
    void clear() {
        uncommitted.clear();
    }
}

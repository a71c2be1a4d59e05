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
 * Commits the offsets of polls that Redis holds, and before partitions move away. A commit that fails leaves its
 * offsets pending, to go with the next one: reading those records again would store messages delivered and deleted
 * meanwhile a second time.
 *
 * <p>Paced: at once for a poll that holds a record due soon or a refused record, else at most {@code commitInterval}
 * later, together with whatever was stored meanwhile. Why waiting is safe: a crash re-reads what is not committed. A
 * re-read record still pending in Redis is stored once (schedules are idempotent on (id, origin)), so only a record
 * delivered and deleted before its commit comes out twice. A record may wait only if it is due later than {@link
 * #GUARD_MILLIS} plus the interval after the latest time Redis' clock can show ({@link RedisClock#atMost}): its commit
 * comes before it can be claimed. A refused record's deadletter copy is written before the commit, so its poll commits
 * at once, as every poll did before the interval. The crash window stays what {@code docs/reliability.md} says: the
 * polls on their way to Redis.
 *
 * <p>The offsets carry the store's incarnation in their metadata ({@link #incarnationMarker}): offsets committed while
 * Redis held one incarnation promise data that a Redis holding another (it came back empty, or was replaced) does not
 * have.
 *
 * <p>Times are monotonic nanoseconds. Intake thread only.
 */
final class OffsetCommitter {

    private static final Logger LOG = LoggerFactory.getLogger(OffsetCommitter.class);

    /**
     * Slack between the planned commit and the earliest due time of what waits for it: the loop's own delays (the
     * commit's round trip to the broker, a write completing, a poll, all capped at the planned time). Not longer: with
     * 1 s, delays of 1-5 s (2.5 % of them within 1.1 s) put such a record in nearly every poll of a hundred, and nearly
     * every poll committed at once.
     */
    static final long GUARD_MILLIS = 250;

    /** Prefix of the committed offsets' metadata; the store's incarnation follows. */
    static final String INCARNATION_PREFIX = "delay-store-incarnation=";

    private final Consumer<byte[], byte[]> consumer;
    private final IntakeMetrics metrics;
    private final Duration pollTimeout;
    /** Offsets of batches that Redis holds and whose commit has not succeeded yet. */
    private final Map<TopicPartition, OffsetAndMetadata> uncommitted = new HashMap<>();
    /** 0: every stored poll is committed at once. */
    private final long intervalMillis;
    /** When {@link #uncommitted} is to be committed (monotonic); MAX_VALUE if nothing waits. */
    private long dueAtNanos = Long.MAX_VALUE;
    /** The latest Redis' clock can show, for pacing. */
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
        this.intervalMillis = commitInterval.toMillis();
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
        stored(offsetsMayWait(poll), time.nanoseconds());
    }

    /**
     * Offsets of polls whose express records settled (delivered, or parked after a failed first send) and whose
     * parked records Redis holds: committed at once, as they hold records that were due.
     */
    void settled(Map<TopicPartition, OffsetAndMetadata> offsets) {
        uncommitted.putAll(offsets);
        stored(false, time.nanoseconds());
    }

    /** Nanoseconds until the pending offsets are to be committed: 0 if now, MAX_VALUE if none wait. */
    long nanosUntilCommit(long nowNanos) {
        return uncommitted.isEmpty() ? Long.MAX_VALUE : nanosUntilDue(nowNanos);
    }

    /** The poll's timeout, shortened so that offsets waiting for their commit are committed in time. */
    Duration pollTimeout() {
        long untilCommit = nanosUntilCommit(time.nanoseconds());
        return untilCommit < pollTimeout.toNanos() ? Duration.ofNanos(untilCommit) : pollTimeout;
    }

    /** Whether the offsets of a stored poll may wait for the next paced commit (no record of it is due soon). */
    private boolean offsetsMayWait(IntakePoll poll) {
        if (!paced() || poll.refused() || poll.earliestDueAt() == Long.MAX_VALUE) {
            return mayWait(poll.earliestDueAt(), poll.refused(), Long.MAX_VALUE);
        }
        long redisNowAtMost = redisClock.atMostNow(
                e -> LOG.debug("Reading Redis' clock failed; committing at once: {}", Failures.describe(e)));
        return redisNowAtMost != Long.MAX_VALUE && mayWait(poll.earliestDueAt(), false, redisNowAtMost);
    }

    /** Whether the interval is set: only then does a poll's earliest due time matter. */
    boolean paced() {
        return intervalMillis > 0;
    }

    /**
     * Whether the offsets of a stored poll may wait for the next paced commit.
     *
     * @param earliestDueAt   the earliest due time among its schedules (epoch ms), MAX_VALUE if it has none
     * @param refused         whether it holds a refused record (written to the deadletter topic)
     * @param redisNowAtMost  the latest time Redis' clock can show now (epoch ms), MAX_VALUE if unknown
     */
    boolean mayWait(long earliestDueAt, boolean refused, long redisNowAtMost) {
        if (!paced() || refused) {
            return false;
        }
        if (earliestDueAt == Long.MAX_VALUE) {
            return true; // cancels only: nothing of it is ever delivered
        }
        return redisNowAtMost != Long.MAX_VALUE && earliestDueAt - intervalMillis - GUARD_MILLIS > redisNowAtMost;
    }

    /** A poll was stored at {@code nowNanos}; its offsets wait (see {@link #mayWait}) or are due at once. */
    void stored(boolean mayWait, long nowNanos) {
        dueAtNanos = Math.min(dueAtNanos, mayWait ? nowNanos + intervalMillis * 1_000_000 : nowNanos);
    }

    /** Whether a commit is due at {@code nowNanos}. */
    boolean due(long nowNanos) {
        return dueAtNanos != Long.MAX_VALUE && nowNanos - dueAtNanos >= 0;
    }

    /** Nanoseconds from {@code nowNanos} until a commit is due: 0 if it is, MAX_VALUE if nothing waits. */
    long nanosUntilDue(long nowNanos) {
        return dueAtNanos == Long.MAX_VALUE ? Long.MAX_VALUE : Math.max(0, dueAtNanos - nowNanos);
    }

    /** Every stored offset is committed: nothing waits. */
    void clearPacing() {
        dueAtNanos = Long.MAX_VALUE;
    }

    /** A commit failed at {@code nowNanos}: try again {@code retryNanos} later, or sooner for a poll due at once. */
    void commitFailed(long nowNanos, long retryNanos) {
        dueAtNanos = nowNanos + retryNanos;
    }

    /** Commits the offsets of stored polls if their commit is due. */
    void commitIfDue() {
        if (uncommitted.isEmpty()) {
            clearPacing();
        } else if (due(time.nanoseconds())) {
            commitStored();
        }
    }

    /** Commits the offsets of stored polls; on failure they stay pending (the records are not read again). */
    private void commitStored() {
        Map<TopicPartition, OffsetAndMetadata> owned = new HashMap<>(uncommitted);
        owned.keySet().retainAll(consumer.assignment());
        uncommitted.keySet().retainAll(owned.keySet());
        if (owned.isEmpty()) {
            clearPacing();
            return;
        }
        try {
            commitSync(owned);
            owned.forEach(uncommitted::remove);
            metrics.commits.mark();
            if (uncommitted.isEmpty()) {
                clearPacing();
            }
        } catch (WakeupException | FencedInstanceIdException e) {
            throw e;
        } catch (RuntimeException e) {
            commitFailed(time.nanoseconds(), pollTimeout.toNanos());
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

    /** The metadata to commit while the store holds {@code incarnation}. */
    static String incarnationMarker(String incarnation) {
        return INCARNATION_PREFIX + incarnation;
    }

    /**
     * Describes the first offset committed under an incarnation other than {@code incarnation}, or returns null if
     * there is none. Offsets without a marker (committed by something else, or never) pass.
     */
    static String incarnationMismatch(Map<TopicPartition, OffsetAndMetadata> committed, String incarnation) {
        String expected = incarnationMarker(incarnation);
        for (Map.Entry<TopicPartition, OffsetAndMetadata> e : committed.entrySet()) {
            OffsetAndMetadata offset = e.getValue();
            if (offset != null
                    && offset.metadata() != null
                    && offset.metadata().startsWith(INCARNATION_PREFIX)
                    && !offset.metadata().equals(expected)) {
                return "offset " + offset.offset() + " of " + e.getKey() + " was committed while Redis held "
                        + "incarnation " + offset.metadata().substring(INCARNATION_PREFIX.length())
                        + ", but Redis now holds incarnation " + incarnation + " (it came back empty or was replaced)";
            }
        }
        return null;
    }
}

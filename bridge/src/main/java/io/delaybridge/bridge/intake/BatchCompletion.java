package io.delaybridge.bridge.intake;

import io.delaybridge.bridge.errors.Failures;
import io.delaybridge.bridge.probe.Checkpoint;
import io.delaybridge.bridge.store.StoreDataLostException;
import io.delaybridge.bridge.store.StoreFencedException;
import io.delaybridge.bridge.store.StoreGapException;
import io.delaybridge.bridge.store.WriteResult;
import io.delaybridge.bridge.store.WrittenBatch;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Completes the intake's batches in poll order once Redis answered their writes: writes the rejections of each stored
 * batch to the deadletter topic, hands its express records over, then commits (or lets the offsets wait:
 * {@link OffsetCommitter}). On a failure every batch in flight is dropped and the consumer seeks back to the earliest
 * record among them ({@link IntakeLoop#rewind}); a gap in the store is repaired, a fence lets the partition's new
 * owner read it again, lost data stops the intake. Intake thread only.
 */
final class BatchCompletion {

    private static final Logger LOG = LoggerFactory.getLogger(BatchCompletion.class);

    private final IntakeLoop loop;
    private final BatchesInFlight inFlight;
    private final PollWriter writer;
    private final StorePositions positions;
    private final IntakeRewind rewinds;
    private final RetryBackoff backoff;
    private final BatchOutput output;

    BatchCompletion(
            IntakeLoop loop,
            BatchesInFlight inFlight,
            PollWriter writer,
            StorePositions positions,
            IntakeRewind rewinds,
            RetryBackoff backoff,
            BatchOutput output) {
        this.loop = loop;
        this.inFlight = inFlight;
        this.writer = writer;
        this.positions = positions;
        this.rewinds = rewinds;
        this.backoff = backoff;
        this.output = output;
    }

    /**
     * Completes batches in poll order: those whose write is done, and, with {@code block}, at least the oldest (all of
     * them with {@code all}: before a rebalance hands partitions over), committing through {@code commits}; a gap the
     * store reports is repaired by {@code gaps}. With {@code backOffOnFailure}, a failed write backs off before the
     * loop reads again.
     */
    void complete(PollCommits commits, StoreGapRepair gaps, boolean block, boolean all, boolean backOffOnFailure) {
        int completed = 0;
        while (!inFlight.isEmpty() && (all || inFlight.oldestDone() || (block && completed == 0))) {
            PollWriter.WrittenPoll written = inFlight.oldest();
            IntakePoll poll = written.poll();
            try {
                List<WriteResult> results = inFlight.awaitOldest(commits, IntakeLoop.WRITE_TIMEOUT_SECONDS);
                output.refused().write(poll.rejected(), poll.reasons());
                inFlight.completeOldest();
                WrittenBatch checked = writer.completed(written);
                ExpressCommits.Poll settling = commits.stored(poll);
                if (!poll.express().isEmpty()) {
                    output.express().stored(written, checked, writer.submitted(), settling);
                }
                positions.stored(poll);
                output.metrics().stored(poll, results);
                backoff.succeeded();
                completed++;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                loop.halt();
                return;
            } catch (ExecutionException | TimeoutException | RuntimeException e) {
                Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
                if (cause instanceof StoreDataLostException) {
                    rewinds.drop();
                    loop.stopForDataLoss(cause.getMessage());
                    return;
                }
                failed(cause, poll, gaps, backOffOnFailure);
                break;
            }
        }
        if (completed > 0) {
            output.probe().reached(Checkpoint.STORED_BEFORE_COMMIT);
            commits.commitIfDue();
        }
    }

    /** The write of {@code poll} (or one before it) failed with {@code cause}: reads everything in flight again. */
    private void failed(Throwable cause, IntakePoll poll, StoreGapRepair gaps, boolean backOffOnFailure) {
        if (cause instanceof WakeupException wakeup) {
            throw wakeup;
        }
        if (cause instanceof FencedInstanceIdException fenced) {
            throw fenced;
        }
        if (cause instanceof StoreGapException gap) {
            loop.rewind();
            gaps.repair(gap.gaps(), "by a write");
            return;
        }
        if (cause instanceof StoreFencedException fenced) {
            // another instance took the shard: this one was stopped past its session and the group moved its
            // partition on; the next poll says so (partitions lost), and the new owner reads the records again
            LOG.warn(
                    "Storing a batch of {} intake records was refused: {}; dropping it, the partition's new owner "
                            + "reads it again",
                    poll.count(),
                    fenced.getMessage());
            loop.rewind();
            return;
        }
        LOG.warn(
                "Storing a batch of {} intake records failed; reading {} records again{}: {}",
                poll.count(),
                inFlight.records(),
                backOffOnFailure ? " in " + backoff.nextMillis() + " ms" : "",
                Failures.describe(cause));
        loop.rewind();
        if (backOffOnFailure) {
            loop.sleepBackoff();
        }
    }
}

package io.delaybridge.bridge.intake;

import io.delaybridge.bridge.errors.Failures;
import io.delaybridge.bridge.log.RecordTranslator;
import io.delaybridge.bridge.store.DelayStore;
import io.delaybridge.bridge.store.ExpressCheck;
import io.delaybridge.bridge.store.PositionMark;
import io.delaybridge.bridge.store.WriteResult;
import io.delaybridge.bridge.store.WrittenBatch;
import io.delaybridge.bridge.time.RedisClock;
import io.delaybridge.bridge.time.Time;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes one poll: translates its records ({@link IntakePoll}; with an {@link ExpressGate}, the records it admits
 * take the express path; those the {@link FarPolicy} sends far are written as far-tier entries), adds the position marks ({@link StorePositions}) and starts the store call, one pipelined
 * batch with the express records' checks behind the writes. Does not wait for Redis and decides nothing about commits
 * ({@link PollCommits}). Intake thread only.
 */
final class PollWriter {

    private static final Logger LOG = LoggerFactory.getLogger(PollWriter.class);

    /**
     * A poll on its way to Redis.
     *
     * @param results   the store's answer per operation
     * @param checked   the whole answer with the express checks, or null if the poll has no express record
     * @param sequence  the poll's number, counted from 1 in submission order
     * @param requested when the write was requested (monotonic ns)
     */
    record WrittenPoll(
            IntakePoll poll,
            CompletableFuture<List<WriteResult>> results,
            CompletableFuture<WrittenBatch> checked,
            long sequence,
            long requested) {}

    private final DelayStore store;
    private final RecordTranslator translator;
    private final StorePositions positions;
    /** Null: the express path is off. */
    private final ExpressGate gate;
    /** Which schedules wait in the far tier ({@link FarPolicy#NONE}: none). */
    private final FarPolicy far;

    private final RedisClock redisClock;
    private final Time time;
    private long submitted;

    PollWriter(
            DelayStore store,
            RecordTranslator translator,
            StorePositions positions,
            ExpressGate gate,
            FarPolicy far,
            RedisClock redisClock,
            Time time) {
        this.time = time;
        this.redisClock = redisClock;
        this.store = store;
        this.translator = translator;
        this.positions = positions;
        this.gate = gate;
        this.far = far;
    }

    /** Translates a poll and starts writing it with its marks (even a poll of refused records only is marked). */
    WrittenPoll write(Iterable<ConsumerRecord<byte[], byte[]>> records, String marker) {
        IntakePoll poll = IntakePoll.translate(
                records, translator, marker, gate, gate == null ? Long.MAX_VALUE : redisNowAtMost(), far);
        List<PositionMark> marks = positions.marksFor(poll);
        long sequence = ++submitted;
        long requested = time.nanoseconds();
        if (poll.ops().isEmpty() && poll.express().isEmpty() && marks.isEmpty()) {
            return new WrittenPoll(poll, CompletableFuture.completedFuture(List.of()), null, sequence, requested);
        }
        try {
            if (poll.express().isEmpty()) {
                return new WrittenPoll(poll, store.write(poll.ops(), marks), null, sequence, requested);
            }
            List<ExpressCheck> checks = poll.express().stream()
                    .map(r -> new ExpressCheck(r.id(), r.dueAt()))
                    .toList();
            CompletableFuture<WrittenBatch> checked = store.write(poll.ops(), marks, checks);
            return new WrittenPoll(poll, checked.thenApply(WrittenBatch::results), checked, sequence, requested);
        } catch (RuntimeException e) { // the batch fails: dropped and read again, its places freed by dropped()
            return new WrittenPoll(poll, CompletableFuture.failedFuture(e), null, sequence, requested);
        }
    }

    /** The number of the last poll submitted. */
    long submitted() {
        return submitted;
    }

    /**
     * A written poll completed: its reading of Redis' clock serves the gate's next polls. Returns its express checks'
     * answers, read once here (null if it had no express records).
     */
    WrittenBatch completed(WrittenPoll written) {
        if (written.checked() == null) {
            return null;
        }
        WrittenBatch batch = written.checked().join();
        if (batch.redisNow() != Long.MIN_VALUE) {
            redisClock.observe(batch.redisNow(), written.requested(), batch.readAtNanos());
        }
        return batch;
    }

    /** The polls were dropped (read again): their express records never left; their places in the gate are free. */
    void dropped(List<IntakePoll> polls) {
        polls.forEach(this::released);
    }

    private void released(IntakePoll poll) {
        if (gate != null) {
            poll.express().forEach(record -> gate.released(record.bytes()));
        }
    }

    /** The latest Redis' clock can show now, read again when the last reading is stale; MAX_VALUE if unknown. */
    private long redisNowAtMost() {
        return redisClock.atMostNow(
                e -> LOG.debug("Reading Redis' clock failed; the poll parks: {}", Failures.describe(e)));
    }
}

package io.delaybridge.bridge.pump;

import io.delaybridge.bridge.probe.Checkpoint;
import io.delaybridge.bridge.probe.PipelineProbe;
import io.delaybridge.bridge.store.DelayStore;
import io.delaybridge.bridge.store.MessageRef;
import io.delaybridge.bridge.store.SeriesStep;
import io.delaybridge.bridge.store.StoreFencedException;
import io.delaybridge.bridge.time.RedisClock;
import io.delaybridge.bridge.time.Time;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the pump does with the outcomes of its sends, on the pump thread: acks delivered and deadlettered messages in
 * batches without waiting for Redis, and hands failed ones to {@link FailedSends} (a retry with backoff, or the
 * deadletter topic before they are deleted).
 *
 * <p>Acks gather per shard until they go together: once the oldest is half a look-ahead old, a batch's worth has
 * gathered, a shard is being revoked, or the pump stops. Acked as their outcomes came in, a steady stream was acked a
 * few messages per call: every producer answer and every ack answer woke the pump, which acked whatever had arrived
 * since (at 5,000 records/s, thousands of ack calls a second; each a script run and, with appendfsync always, often an
 * fsync). Waiting half a look-ahead gathers them; it costs nothing but the in-flight places they hold that much longer
 * (a crash in that time delivers them again, as it would any message delivered and not yet acked). Times of the
 * gathering are monotonic nanoseconds.
 */
final class OutcomeHandler {

    private static final Logger LOG = LoggerFactory.getLogger(OutcomeHandler.class);
    /** Bounds one ack script: Redis runs it alone, so a long one delays every other client. */
    private static final int MAX_ACKS_PER_CALL = 1_000;

    private final DelayStore store;
    private final PumpMetrics metrics;
    private final FailedSends failures;
    private final MessageSender sender;
    private final InFlightPlaces places;
    /** Redis' time now, as estimated. */
    private final LongSupplier redisNow;

    private final Time time;
    /** Told of the checkpoints it reaches: {@link PipelineProbe#NONE} in the service. */
    private final PipelineProbe probe;

    /** How long the oldest gathered ack may wait: half the look-ahead. */
    private final long ackDelayNanos;
    /** A batch's worth of gathered acks goes at once. */
    private final int ackBatchSize;
    /** Delivered and deadlettered messages not acked yet, per shard. */
    private final Map<OwnedShard, List<Outcome>> unacked = new HashMap<>();
    /** When the oldest of {@link #unacked} was added. */
    private long unackedSinceNanos;

    OutcomeHandler(
            DelayStore store,
            PumpSends sends,
            PumpSettings settings,
            PumpMetrics metrics,
            SendPath path,
            RedisClock redisClock,
            PipelineProbe probe) {
        this.store = store;
        this.metrics = metrics;
        this.failures = new FailedSends(store, sends, metrics, path, redisClock::now);
        this.sender = path.sender();
        this.places = path.places();
        this.redisNow = redisClock::now;
        this.time = redisClock.time();
        this.probe = probe;
        this.ackDelayNanos = TimeUnit.MILLISECONDS.toNanos(settings.lookAheadMillis() / 2);
        this.ackBatchSize = settings.batchSize();
    }

    /** Acks, retries and deadletters what the producer reported, batching acks per shard. */
    void process() {
        Map<OwnedShard, List<Outcome>> finished = new HashMap<>();
        for (Outcome outcome : sender.drainOutcomes()) {
            switch (outcome.kind()) {
                case DELIVERED -> {
                    metrics.delivered.mark();
                    long lateness = Math.max(
                            0, outcome.deliveredAt() - outcome.message().dueAt());
                    metrics.lateness.update(lateness);
                    if (outcome.target() != null) {
                        outcome.target().delivered(lateness);
                    }
                    finished.computeIfAbsent(outcome.shard(), s -> new ArrayList<>())
                            .add(outcome);
                }
                case ALREADY_DELIVERED -> {
                    metrics.alreadyDelivered.mark();
                    finished.computeIfAbsent(outcome.shard(), s -> new ArrayList<>())
                            .add(outcome);
                }
                case DEADLETTERED -> {
                    metrics.deadlettered.mark(outcome.code());
                    finished.computeIfAbsent(outcome.shard(), s -> new ArrayList<>())
                            .add(outcome);
                }
                case FAILED -> failures.failed(outcome);
                case DEADLETTER_FAILED -> failures.deadletterFailed(outcome);
            }
        }
        if (!finished.isEmpty()) {
            probe.reached(Checkpoint.SENT_BEFORE_ACK);
            gather(finished, time.nanoseconds());
        }
        flushAcks(false);
    }

    /** Acks the gathered messages if they are due, or everything with {@code all} (the pump stops). */
    void flushAcks(boolean all) {
        takeDueAcks(all, time.nanoseconds()).forEach(this::ack);
    }

    /** Adds finished outcomes, per shard, at {@code nowNanos}, to be acked together. */
    void gather(Map<OwnedShard, List<Outcome>> finished, long nowNanos) {
        if (finished.isEmpty()) {
            return;
        }
        if (unacked.isEmpty()) {
            unackedSinceNanos = nowNanos;
        }
        finished.forEach((shard, done) ->
                unacked.computeIfAbsent(shard, s -> new ArrayList<>()).addAll(done));
    }

    /** Takes what is to be acked now (everything with {@code all}), per shard; empty if the acks may wait on. */
    Map<OwnedShard, List<Outcome>> takeDueAcks(boolean all, long nowNanos) {
        if (unacked.isEmpty()) {
            return Map.of();
        }
        boolean due = all || nowNanos - unackedSinceNanos >= ackDelayNanos;
        if (!due) {
            int count = 0;
            for (Map.Entry<OwnedShard, List<Outcome>> entry : unacked.entrySet()) {
                count += entry.getValue().size();
                due |= entry.getKey().revoked;
            }
            due |= count >= ackBatchSize;
        }
        if (!due) {
            return Map.of();
        }
        Map<OwnedShard, List<Outcome>> taken = new HashMap<>(unacked);
        unacked.clear();
        return taken;
    }

    /**
     * Nanoseconds from {@code nowNanos} until the gathered acks are due by age (negative if overdue); MAX_VALUE if
     * nothing is gathered.
     */
    long nanosUntilAcksDue(long nowNanos) {
        return unacked.isEmpty() ? Long.MAX_VALUE : unackedSinceNanos + ackDelayNanos - nowNanos;
    }

    /** The Redis time by which the pump must wake to flush gathered acks; MAX_VALUE if there are none. */
    long ackFlushAt() {
        long leftNanos = nanosUntilAcksDue(time.nanoseconds());
        if (leftNanos == Long.MAX_VALUE) {
            return Long.MAX_VALUE;
        }
        return redisNow.getAsLong() + Math.max(0, TimeUnit.NANOSECONDS.toMillis(leftNanos) + 1);
    }

    /**
     * Deletes delivered messages without waiting for Redis: the pump claims on while acks are on their way. An ack
     * that fails leaves its messages in flight; their lease returns them and they are delivered again (at least
     * once), unless a transaction delivered them (exactly once): then the delivery remembers them until an ack is
     * confirmed (Redis deleted every message acked), and a message claimed again is acked, not sent. Their in-flight
     * places are freed when the answer comes.
     */
    private void ack(OwnedShard shard, List<Outcome> done) {
        List<Outcome> plain = new ArrayList<>(done.size());
        List<SeriesStep> steps = new ArrayList<>();
        List<String> stepKeys = new ArrayList<>();
        for (Outcome outcome : done) {
            SeriesStep step = SeriesTurns.step(outcome, metrics.series);
            if (step == null) {
                plain.add(outcome);
            } else {
                steps.add(step);
                stepKeys.add(sender.key(outcome.message()));
            }
        }
        for (int from = 0; from < plain.size(); from += MAX_ACKS_PER_CALL) {
            List<Outcome> part = plain.subList(from, Math.min(plain.size(), from + MAX_ACKS_PER_CALL));
            List<MessageRef> refs = new ArrayList<>(part.size());
            List<String> keys = new ArrayList<>(part.size());
            for (Outcome outcome : part) {
                refs.add(outcome.message().ref());
                keys.add(sender.key(outcome.message()));
            }
            settle(shard, keys, () -> store.ackAsync(shard.shard, shard.epoch, refs), Long.MAX_VALUE);
        }
        for (int from = 0; from < steps.size(); from += MAX_ACKS_PER_CALL) {
            int to = Math.min(steps.size(), from + MAX_ACKS_PER_CALL);
            List<SeriesStep> part = List.copyOf(steps.subList(from, to));
            // the next occurrence is stored by the call that settles this one: a crash stops no series. The pump
            // wakes itself for it: the store's wake-up is best-effort, and no claim told the pump of this due time
            settle(
                    shard,
                    List.copyOf(stepKeys.subList(from, to)),
                    () -> store.settleSeriesAsync(shard.shard, shard.epoch, part),
                    part.stream()
                            .filter(SeriesStep::goesOn)
                            .mapToLong(SeriesStep::nextDue)
                            .min()
                            .orElse(Long.MAX_VALUE));
        }
    }

    /**
     * @param keys   what exactly once remembers the settled messages by ({@link MessageSender#key})
     * @param wakeAt when the shard holds a message the call stored (Redis' clock, ms), Long.MAX_VALUE if none
     */
    private void settle(OwnedShard shard, List<String> keys, Supplier<CompletableFuture<Integer>> call, long wakeAt) {
        places.ackSent();
        CompletableFuture<Integer> ack;
        try {
            ack = call.get();
        } catch (RuntimeException e) {
            ack = CompletableFuture.failedFuture(e);
        }
        ack.whenComplete((deleted, error) -> {
            if (error != null) {
                Throwable cause =
                        error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
                if (cause instanceof StoreFencedException) {
                    metrics.acksFenced.mark(keys.size());
                    LOG.warn(
                            "{}; its new owner delivers the {} messages acked here again",
                            cause.getMessage(),
                            keys.size());
                } else {
                    LOG.warn(
                            "Could not acknowledge {} delivered messages in shard {}: {}",
                            keys.size(),
                            shard.shard,
                            cause.getMessage());
                }
            } else {
                // fewer deleted than acked: some went back to the due set by their lease while being delivered
                sender.acked(shard, keys, deleted == keys.size());
                shard.woken(wakeAt); // the pump is signalled by finish() below
            }
            places.ackAnswered();
            places.finish(shard, keys.size());
        });
    }
}

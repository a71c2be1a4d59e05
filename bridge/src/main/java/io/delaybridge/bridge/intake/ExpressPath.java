package io.delaybridge.bridge.intake;

import io.delaybridge.bridge.delivery.Delivery;
import io.delaybridge.bridge.delivery.ExpressSender;
import io.delaybridge.bridge.delivery.SendFailures;
import io.delaybridge.bridge.delivery.TargetRates;
import io.delaybridge.bridge.store.DelayStore;
import io.delaybridge.bridge.store.ExpressCheck;
import io.delaybridge.bridge.store.PositionMark;
import io.delaybridge.bridge.store.WriteResult;
import io.delaybridge.bridge.store.WrittenBatch;
import io.delaybridge.schemas.Envelope;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.IntPredicate;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The express path: intake records already due (or due within {@code intake.expressWindow}) are delivered straight
 * from the intake to their target and never written to Redis; Kafka holds them in the intake until their offset is
 * committed, and that happens only once they settled.
 *
 * <p>The steps of a poll: {@link ExpressGate} admits records at translation ({@link IntakePoll}); {@link #write}
 * writes the poll's parked records and, in the same pipeline after them, checks the express records against the store
 * ({@code express.lua}: the record's claim moment); once the batch is the oldest complete one, {@link #stored} hands
 * the records that passed to the {@link ExpressSender} and parks the others in the store. A record whose first send
 * fails (or whose target check fails) is parked too, due as it was, where the pump's retry and deadletter rules take
 * it over. A record settles when its send is acknowledged or its park is; the poll's offsets reach the committer only
 * when every express record of it settled, in poll order ({@link ExpressCommits}).
 *
 * <p>Sends start only when a batch completes on the intake thread, never for a batch still in flight: a failure that
 * rewinds the consumer drops only batches whose records were not sent, so a rewind never sends a record twice.
 * Records of completed batches lie before every rewind point.
 *
 * <p>Order: a record that parks after its check makes the rest of its partition's express records park, in its poll
 * and in every poll submitted before its park was written (their checks could not see it).
 */
final class ExpressPath {

    private static final Logger LOG = LoggerFactory.getLogger(ExpressPath.class);
    private static final long PARK_RETRY_MILLIS = 500;
    private static final long MAX_PARK_RETRY_MILLIS = 10_000;
    /** How often the intake looks for settled polls while some wait. */
    private static final Duration SETTLED_POLL = Duration.ofMillis(5);

    /** A poll with express records, written and checked, not yet completed. */
    private record Pending(long sequence, long requestedNanos, CompletableFuture<WrittenBatch> written) {}

    private final ExpressGate gate;
    private final DelayStore store;
    private final IntPredicate deliveryPaused;
    /** Delivery rate caps: a capped target's records park (the pump's throttle keeps the cap, oldest first). */
    private final TargetRates rates;
    private final IntakeMetrics metrics;
    private final ExpressSender sender;
    private final ExpressCommits commits = new ExpressCommits();
    private final RedisClockCeiling redisClock = new RedisClockCeiling();
    private final Map<IntakePoll, Pending> pending = new IdentityHashMap<>();
    /** Per partition: the last poll whose checks ran before a fallback park of the partition was written. */
    private final Map<Integer, Long> fallbackUpTo = new HashMap<>();
    private final ScheduledExecutorService parker;
    private volatile boolean stopped;
    private long submitted;

    /**
     * @param rates          the delivery rate caps and per-target meters
     * @param deliveryPaused whether deliveries from a shard are paused (the pump, or the shard, paused by an operator):
     *                       then its express records park too
     */
    ExpressPath(IntakeSettings settings, DelayStore store, Delivery delivery, TargetRates rates,
            IntPredicate deliveryPaused, IntakeMetrics metrics) {
        this.store = store;
        this.rates = rates;
        this.deliveryPaused = deliveryPaused;
        this.metrics = metrics;
        boolean on = settings.expressWindowMillis() != ExpressGate.OFF && delivery != null;
        this.gate = on ? new ExpressGate(settings.expressWindowMillis(), settings.expressBufferRecords(),
                settings.expressBufferBytes()) : null;
        this.sender = on ? new ExpressSender(delivery, settings.expressWindowMillis() + 1_000) : null;
        this.parker = on ? Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "delay-express-park")) : null;
        metrics.expressBuffer(() -> gate == null ? 0 : gate.heldRecords());
    }

    void start() {
        if (sender != null) {
            sender.start();
        }
    }

    /** After the consumer closed (its revocation waited for the express records): ends the threads. */
    void stop() throws InterruptedException {
        stopped = true;
        if (sender != null) {
            sender.stop();
            parker.shutdown();
            parker.awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    /** Translates a poll: what the gate admits takes the express path. */
    IntakePoll translate(Iterable<ConsumerRecord<byte[], byte[]>> records,
            RecordTranslator translator, String marker) {
        return gate == null ? IntakePoll.translate(records, translator, marker)
                : IntakePoll.translate(records, translator, marker, gate, redisNowAtMost());
    }

    /** The latest Redis' clock can show now, read again when the last reading is stale; MAX_VALUE if unknown. */
    private long redisNowAtMost() {
        long now = System.nanoTime();
        if (!redisClock.fresh(now)) {
            try {
                long redisNow = store.now();
                redisClock.observe(redisNow, now);
            } catch (RuntimeException e) {
                LOG.debug("Reading Redis' clock failed; the poll parks: {}", SendFailures.describe(e));
                return Long.MAX_VALUE;
            }
        }
        return redisClock.atMost(System.nanoTime());
    }

    /**
     * Writes the poll's parked records and its position {@code marks}, and checks its express records, in one
     * pipelined batch.
     */
    CompletableFuture<List<WriteResult>> write(IntakePoll poll, List<PositionMark> marks) {
        long sequence = ++submitted;
        if (poll.ops().isEmpty() && poll.express().isEmpty() && marks.isEmpty()) {
            return CompletableFuture.completedFuture(List.of());
        }
        try {
            if (poll.express().isEmpty()) {
                return store.write(poll.ops(), marks);
            }
            List<ExpressCheck> checks = poll.express().stream()
                    .map(r -> new ExpressCheck(r.id(), r.dueAt())).toList();
            long requested = System.nanoTime();
            CompletableFuture<WrittenBatch> written = store.write(poll.ops(), marks, checks);
            pending.put(poll, new Pending(sequence, requested, written));
            return written.thenApply(WrittenBatch::results);
        } catch (RuntimeException e) {
            if (!pending.containsKey(poll)) {
                poll.express().forEach(record -> gate.released(record.bytes())); // dropped with the batch
            }
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * The oldest batch is stored (its write done, its refused records deadlettered): its offsets go to the committer
     * now if nothing waits before them, else once its express records settled; those are sent or parked.
     */
    void stored(IntakePoll poll, OffsetCommitter committer) {
        metrics.parked.mark(poll.ops().size());
        Pending written = pending.remove(poll);
        if (written == null) {
            if (commits.size() == 0) {
                committer.stored(poll);
            } else {
                commits.add(poll.commit(), 0);
            }
            return;
        }
        WrittenBatch batch = written.written().join(); // done: the batch completed
        if (batch.redisNow() != Long.MIN_VALUE) {
            sender.observe(batch.redisNow(), batch.readAtNanos());
            redisClock.observe(batch.redisNow(), written.requestedNanos());
        }
        ExpressCommits.Poll settling = commits.add(poll.commit(), poll.express().size());
        Set<Integer> fallen = new HashSet<>();
        List<ExpressSender.Express> sends = new ArrayList<>();
        List<IntakePoll.ExpressRecord> sent = new ArrayList<>();
        for (int i = 0; i < poll.express().size(); i++) {
            IntakePoll.ExpressRecord record = poll.express().get(i);
            Envelope envelope = record.envelope();
            boolean passed = batch.passed().get(i) && !fallen.contains(record.partition())
                    && !deliveryPaused.test(record.partition()) // a default id lives in its partition's shard
                    && !rates.capped(envelope.target())
                    && fallbackUpTo.getOrDefault(record.partition(), 0L) < written.sequence();
            if (passed) {
                sends.add(new ExpressSender.Express(envelope, record.id(), record.dueAt(), record.partition(),
                        settlement(record, envelope.target(), settling)));
                sent.add(record);
            } else {
                fallen.add(record.partition());
                fallbackUpTo.put(record.partition(), submitted);
                metrics.expressFallback.mark();
                park(record, settling, 0);
            }
        }
        if (!sender.hold(sends)) {
            sent.forEach(record -> park(record, settling, 0)); // stopping: park instead
        }
    }

    private ExpressSender.Settlement settlement(IntakePoll.ExpressRecord record, String target,
            ExpressCommits.Poll settling) {
        return new ExpressSender.Settlement() {
            @Override
            public void delivered(long timestamp) {
                metrics.express.mark();
                metrics.delivered.mark();
                long lateness = Math.max(0, timestamp - record.dueAt());
                metrics.lateness.update(lateness);
                rates.target(target).delivered(lateness);
                settle(record, settling);
            }

            @Override
            public void failed(Exception error) {
                LOG.info("First send of express record {} failed; parking it in the store for the pump's retries: {}",
                        record.id(), SendFailures.describe(error));
                metrics.expressFallback.mark();
                try {
                    parker.execute(() -> park(record, settling, 0));
                } catch (RuntimeException e) {
                    LOG.warn("Could not park express record {} (stopping): the intake reads it again",
                            record.id());
                }
            }
        };
    }

    /** Writes an express record to the store, due as it was; settles once Redis holds it, retrying until it does. */
    private void park(IntakePoll.ExpressRecord record, ExpressCommits.Poll settling, int failures) {
        CompletableFuture<List<WriteResult>> write;
        try {
            write = store.write(List.of(record.op()));
        } catch (RuntimeException e) {
            write = CompletableFuture.failedFuture(e);
        }
        write.whenComplete((results, error) -> {
            if (error == null) {
                metrics.parked.mark();
                results.forEach(metrics::result);
                settle(record, settling);
            } else if (stopped) {
                LOG.warn("Could not park express record {} before the stop; the intake reads it again: {}",
                        record.id(), SendFailures.describe(error));
            } else {
                long backoff = Math.min(MAX_PARK_RETRY_MILLIS, PARK_RETRY_MILLIS << Math.min(failures, 5));
                LOG.warn("Could not park express record {}; trying again in {} ms: {}", record.id(), backoff,
                        SendFailures.describe(error));
                try {
                    parker.schedule(() -> park(record, settling, failures + 1), backoff, TimeUnit.MILLISECONDS);
                } catch (RuntimeException e) {
                    LOG.warn("Could not park express record {} (stopping): the intake reads it again",
                            record.id());
                }
            }
        });
    }

    private void settle(IntakePoll.ExpressRecord record, ExpressCommits.Poll settling) {
        gate.released(record.bytes());
        commits.settled(settling);
    }

    /**
     * Whether settled offsets wait for their commit: the loop then completes the batch in flight first, so that the
     * commit (a blocking round trip) does not hold back the sends of records already checked.
     */
    boolean settledWaiting() {
        return commits.oldestSettled();
    }

    /** Hands the offsets of the leading settled polls to the committer. */
    void commitSettled(OffsetCommitter committer) {
        Map<TopicPartition, OffsetAndMetadata> offsets = commits.takeSettled();
        if (!offsets.isEmpty()) {
            committer.settled(offsets);
        }
    }

    /**
     * Before partitions move away or the intake stops: waits (bounded) until every express record sent settled, so
     * that the commit covers what was delivered and the next owner does not deliver it again.
     */
    void settleAll(OffsetCommitter committer, long timeoutMillis) {
        try {
            if (!commits.awaitAllSettled(timeoutMillis)) {
                LOG.warn("Express records still unsettled after {} ms; their offsets are not committed, so whoever "
                        + "reads those partitions next may deliver them again", timeoutMillis);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        commitSettled(committer);
    }

    /** The batches in flight are dropped (read again): their express records were never sent; free their places. */
    void dropInFlight() {
        pending.keySet().forEach(poll -> poll.express().forEach(record -> gate.released(record.bytes())));
        pending.clear();
    }

    /**
     * The partitions are lost without a hand-over (the group fenced this member): the offsets of express records
     * still settling are never committed; the next owner reads those records again.
     */
    void forgetUnsettled() {
        commits.clear();
    }

    /** How long the next poll may wait: briefly while settled offsets may be waiting to be committed. */
    Duration pollTimeout(Duration timeout) {
        return commits.size() > 0 && timeout.compareTo(SETTLED_POLL) > 0 ? SETTLED_POLL : timeout;
    }
}

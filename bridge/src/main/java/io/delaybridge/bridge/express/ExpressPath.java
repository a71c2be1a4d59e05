package io.delaybridge.bridge.express;

import io.delaybridge.bridge.delivery.Delivery;
import io.delaybridge.bridge.delivery.DeliveryPauses;
import io.delaybridge.bridge.delivery.TargetRates;
import io.delaybridge.bridge.errors.Failures;
import io.delaybridge.bridge.release.DueReleaser;
import io.delaybridge.bridge.store.DelayStore;
import io.delaybridge.bridge.store.StoreFencedException;
import io.delaybridge.bridge.store.WriteOp;
import io.delaybridge.bridge.store.WriteResult;
import io.delaybridge.bridge.store.WrittenBatch;
import io.delaybridge.bridge.time.RedisClock;
import io.delaybridge.schemas.Envelope;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The express path: intake records already due (or due within {@code intake.expressWindow}) are delivered straight
 * from the intake to their target and never written to Redis; Kafka holds them in the intake until their offset is
 * committed, and that happens only once they settled (the intake's commit rule, told through {@link Settling}).
 *
 * <p>This is where the intake hands its express records: once a poll is stored, its express records and the answers
 * of their checks come here; those that passed are sent, the others parked in the store, and each one's outcome goes
 * back to the intake's {@link Settling}. The intake admits the records and keeps its commit rule; this side sends,
 * parks and retries.
 *
 * <p>The steps of a poll: the intake's gate admits records at translation and its writer writes the poll's parked
 * records and, in the same pipeline after them, checks the express records against the store ({@code express.lua}:
 * the record's claim moment); once the batch is the oldest complete one, {@link #stored} holds the records that passed
 * for their send and parks the others in the store. A record whose first send fails (or whose target check fails) is
 * parked too, due as it was, where the pump's retry and deadletter rules take it over. A record settles when its send
 * is acknowledged or its park is.
 *
 * <p>Sends go out on a release thread of its own ({@link DueReleaser}): a record due later than a lower bound of
 * Redis' clock waits until that bound reaches its due time, exactly as the pump's claimed messages do, so it is never
 * early. The record sent is the one the pump would send for the same message on its first attempt
 * ({@code DeliveryRecords.toTarget}: key, value, user headers, {@code delay-id} = the default id,
 * {@code delay-due-at}, {@code delay-origin}, {@code delay-attempt: 1}), sent by the same {@link Delivery}, with the
 * same target checks.
 *
 * <p>Sends start only when a batch completes on the intake thread, never for a batch still in flight: a failure that
 * rewinds the consumer drops only batches whose records were not sent, so a rewind never sends a record twice.
 * Records of completed batches lie before every rewind point.
 *
 * <p>Order: a record that parks after its check makes the rest of its partition's express records park, in its poll
 * and in every poll submitted before its park was written (their checks could not see it).
 */
public final class ExpressPath {

    private static final Logger LOG = LoggerFactory.getLogger(ExpressPath.class);
    private static final long PARK_RETRY_MILLIS = 500;
    private static final long MAX_PARK_RETRY_MILLIS = 10_000;

    /** An express record as the intake read it. */
    public interface Record {
        /** Its default id. */
        String id();

        /** Its due time, epoch ms on Redis' clock. */
        long dueAt();

        /** What to send, not encoded. */
        Envelope envelope();

        /** The store operation that parks it (its envelope encoded now): after a failed check or first send. */
        WriteOp.Schedule op();

        /** Its intake partition, which is its shard. */
        int partition();

        /** Its intake offset. */
        long offset();
    }

    /** The intake, told what became of each record handed over; any thread. */
    public interface Settling<R extends Record> {
        /** Delivered, parked, or delivered by a committed transaction before: its offset may commit. */
        void settled(R record);

        /** Left for the partition's new owner to read again (this instance was fenced): it never settles here. */
        void abandoned(R record);
    }

    /** The meters of the express path; any thread. */
    public interface Meters {
        /** Sent and acknowledged, {@code latenessMillis} after its due time. */
        void delivered(long latenessMillis);

        /** Parked after all: its check or its first send failed, or its shard cannot send now. */
        void fellBack();

        /** Exactly once: read again, and delivered by a committed transaction already (not sent again). */
        void alreadyDelivered();

        /** Parked: Redis holds it, with these results. */
        void parked(List<WriteResult> results);
    }

    private final DelayStore store;
    private final DeliveryPauses pauses;
    /** Delivery rate caps: a capped target's records park (the pump's throttle keeps the cap, oldest first). */
    private final TargetRates rates;

    private final Meters metrics;
    private final Delivery delivery;
    /** Sends the records that passed at their due time, on the {@code delay-express} thread. */
    private final DueReleaser<Send> releaser;
    /** Per partition: the last poll whose checks ran before a fallback park of the partition was written. */
    private final Map<Integer, Long> fallbackUpTo = new HashMap<>();

    private final ScheduledExecutorService parker;
    private volatile boolean stopped;

    /**
     * @param windowMillis the express window: how long a record may wait for its due time, less a second
     * @param sends        the delivery, its rate caps and whether a shard's deliveries are paused
     * @param redisClock   Redis' clock, whose {@link RedisClock#time} the release thread reads too
     */
    ExpressPath(long windowMillis, DelayStore store, ExpressSends sends, Meters metrics, RedisClock redisClock) {
        this.store = store;
        this.rates = sends.rates();
        this.pauses = sends.pauses();
        this.metrics = metrics;
        this.delivery = sends.delivery();
        this.releaser = new DueReleaser<>(
                this::send, Send::dueAt, windowMillis + 1_000, redisClock, redisClock.time(), "delay-express");
        this.parker = Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "delay-express-park"));
    }

    public void start() {
        releaser.start();
    }

    /** After the consumer closed (its revocation waited for the express records): ends the threads. */
    public void stop() throws InterruptedException {
        stopped = true;
        releaser.stop(); // sends what is held when it falls due, then ends the release thread
        parker.shutdown();
        parker.awaitTermination(5, TimeUnit.SECONDS);
    }

    /**
     * A poll is stored (its write done, its refused records deadlettered), and its express records {@code records}
     * passed or failed their checks ({@code checks}): those that passed are sent, the others parked; each settles on
     * {@code settling}. {@code sequence} is the poll's number, {@code latestSequence} the last poll submitted so far:
     * its checks, and those before it, ran before a park decided now is written.
     */
    public <R extends Record> void stored(
            List<R> records, WrittenBatch checks, long sequence, long latestSequence, Settling<? super R> settling) {
        Set<Integer> fallen = new HashSet<>();
        List<Send> sends = new ArrayList<>();
        List<R> sent = new ArrayList<>();
        for (int i = 0; i < records.size(); i++) {
            R record = records.get(i);
            Envelope envelope = record.envelope();
            // read now, on the intake thread, before a revoke of the partition could lift it: a park decided later
            // (after a failed send) is refused once another owner took the shard, even after this one let it go
            long fence = store.writeFence(record.partition());
            boolean passed = checks.passed().get(i)
                    && !fallen.contains(record.partition())
                    && !pauses.paused(record.partition()) // a default id lives in its partition's shard
                    && !rates.capped(envelope.target())
                    && fallbackUpTo.getOrDefault(record.partition(), 0L) < sequence
                    // exactly once: sent in its shard's transaction, so only once this instance opened it
                    && delivery.shardOpen(record.partition());
            if (passed && delivery.settledBefore(record.partition(), record.id(), envelope.origin())) {
                // exactly once: a committed transaction of the shard delivered it, but the intake's offset did not
                // commit with it (an earlier record was still on its way): read again after a crash, not sent again
                metrics.alreadyDelivered();
                settling.settled(record);
            } else if (passed) {
                sends.add(new Send(
                        envelope,
                        record.id(),
                        record.dueAt(),
                        record.partition(),
                        settlement(record, fence, envelope.target(), settling)));
                sent.add(record);
            } else {
                fallen.add(record.partition());
                fallbackUpTo.put(record.partition(), latestSequence);
                metrics.fellBack();
                park(record, fence, settling, 0);
            }
        }
        if (!sends.isEmpty() && !releaser.hold(sends)) {
            sent.forEach(record -> park(record, store.writeFence(record.partition()), settling, 0)); // stopping
        }
    }

    /** An express record that passed, held until its due time: what to send, and whom to tell how it ended. */
    private record Send(Envelope envelope, String id, long dueAt, int shard, Delivery.Result settlement) {
        @Override
        public String toString() {
            return "express record " + id;
        }
    }

    /** Sends a record at its due time, on the release thread; its outcome goes to its settlement. */
    private void send(Send send) {
        Delivery.Result settlement = send.settlement();
        delivery.deliver(send.shard(), send.envelope(), send.id(), send.dueAt(), 1, new Delivery.Result() {
            @Override
            public void delivered(long timestamp) {
                // exactly once: its transaction's delivered-log entry is forgotten once the intake committed past it
                delivery.acked(send.shard(), List.of(send.id()), true);
                settlement.delivered(timestamp);
            }

            @Override
            public void failed(Exception error) {
                settlement.failed(error);
            }
        });
    }

    /** What became of a record's send; called on the release thread or a producer thread, never both. */
    private <R extends Record> Delivery.Result settlement(
            R record, long fence, String target, Settling<? super R> settling) {
        return new Delivery.Result() {
            @Override
            public void delivered(long timestamp) {
                long lateness = Math.max(0, timestamp - record.dueAt());
                metrics.delivered(lateness);
                rates.target(target).delivered(lateness);
                settling.settled(record);
            }

            @Override
            public void failed(Exception error) {
                LOG.info(
                        "First send of express record {} failed; parking it in the store for the pump's retries: {}",
                        record.id(),
                        Failures.describe(error));
                metrics.fellBack();
                try {
                    parker.execute(() -> park(record, fence, settling, 0));
                } catch (RuntimeException e) {
                    LOG.warn("Could not park express record {} (stopping): the intake reads it again", record.id());
                }
            }
        };
    }

    /**
     * Writes an express record to the store, due as it was; settles once Redis holds it, retrying until it does.
     * {@code fence}: the shard's write fence when the record was handed over (negative: none), which the write keeps.
     */
    private <R extends Record> void park(R record, long fence, Settling<? super R> settling, int failures) {
        CompletableFuture<List<WriteResult>> write;
        try {
            write = store.write(List.of(record.op()), record.partition(), fence);
        } catch (RuntimeException e) {
            write = CompletableFuture.failedFuture(e);
        }
        write.whenComplete((results, error) -> {
            if (error == null) {
                metrics.parked(results);
                settling.settled(record);
            } else if (unwrapped(error) instanceof StoreFencedException fenced) {
                // another instance took the shard (this one is a zombie): it reads the record again, and may have
                // delivered it already; parked here it would go twice. Unsettled, its offset is never committed here.
                settling.abandoned(record);
                LOG.warn(
                        "Express record {} not parked: {}; the partition's new owner reads it again",
                        record.id(),
                        fenced.getMessage());
            } else if (stopped) {
                LOG.warn(
                        "Could not park express record {} before the stop; the intake reads it again: {}",
                        record.id(),
                        Failures.describe(error));
            } else {
                long backoff = Math.min(MAX_PARK_RETRY_MILLIS, PARK_RETRY_MILLIS << Math.min(failures, 5));
                LOG.warn(
                        "Could not park express record {}; trying again in {} ms: {}",
                        record.id(),
                        backoff,
                        Failures.describe(error));
                try {
                    parker.schedule(() -> park(record, fence, settling, failures + 1), backoff, TimeUnit.MILLISECONDS);
                } catch (RuntimeException e) {
                    LOG.warn("Could not park express record {} (stopping): the intake reads it again", record.id());
                }
            }
        });
    }

    private static Throwable unwrapped(Throwable error) {
        return error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    }
}

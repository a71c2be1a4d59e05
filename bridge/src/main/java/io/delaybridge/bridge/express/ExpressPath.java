package io.delaybridge.bridge.express;

import io.delaybridge.bridge.delivery.Delivery;
import io.delaybridge.bridge.delivery.DeliveryPauses;
import io.delaybridge.bridge.delivery.TargetRates;
import io.delaybridge.bridge.errors.Failures;
import io.delaybridge.bridge.store.DelayStore;
import io.delaybridge.bridge.store.StoreFencedException;
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
 * committed, and that happens only once they settled (the intake's commit rule, told through {@link
 * ExpressLane.Settling}).
 *
 * <p>The steps of a poll: the intake's gate admits records at translation and its writer writes the poll's parked
 * records and, in the same pipeline after them, checks the express records against the store ({@code express.lua}:
 * the record's claim moment); once the batch is the oldest complete one, {@link #stored} hands the records that passed
 * to the {@link ExpressSender} and parks the others in the store. A record whose first send fails (or whose target
 * check fails) is parked too, due as it was, where the pump's retry and deadletter rules take it over. A record
 * settles when its send is acknowledged or its park is.
 *
 * <p>Sends start only when a batch completes on the intake thread, never for a batch still in flight: a failure that
 * rewinds the consumer drops only batches whose records were not sent, so a rewind never sends a record twice.
 * Records of completed batches lie before every rewind point.
 *
 * <p>Order: a record that parks after its check makes the rest of its partition's express records park, in its poll
 * and in every poll submitted before its park was written (their checks could not see it).
 */
final class ExpressPath implements ExpressLane {

    private static final Logger LOG = LoggerFactory.getLogger(ExpressPath.class);
    private static final long PARK_RETRY_MILLIS = 500;
    private static final long MAX_PARK_RETRY_MILLIS = 10_000;

    private final DelayStore store;
    private final DeliveryPauses pauses;
    /** Delivery rate caps: a capped target's records park (the pump's throttle keeps the cap, oldest first). */
    private final TargetRates rates;

    private final Meters metrics;
    private final Delivery delivery;
    private final ExpressSender sender;
    /** Per partition: the last poll whose checks ran before a fallback park of the partition was written. */
    private final Map<Integer, Long> fallbackUpTo = new HashMap<>();

    private final ScheduledExecutorService parker;
    private volatile boolean stopped;

    /**
     * @param windowMillis the express window: how long a record may wait for its due time, less a second
     * @param sends        the delivery, its rate caps and whether a shard's deliveries are paused
     * @param redisClock   Redis' clock, whose {@link RedisClock#time} the sender reads too
     */
    ExpressPath(long windowMillis, DelayStore store, ExpressSends sends, Meters metrics, RedisClock redisClock) {
        this.store = store;
        this.rates = sends.rates();
        this.pauses = sends.pauses();
        this.metrics = metrics;
        this.delivery = sends.delivery();
        this.sender = new ExpressSender(delivery, windowMillis + 1_000, redisClock, redisClock.time());
        this.parker = Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "delay-express-park"));
    }

    @Override
    public void start() {
        sender.start();
    }

    @Override
    public void stop() throws InterruptedException {
        stopped = true;
        sender.stop();
        parker.shutdown();
        parker.awaitTermination(5, TimeUnit.SECONDS);
    }

    @Override
    public <R extends Record> void stored(
            List<R> records, WrittenBatch checks, long sequence, long latestSequence, Settling<? super R> settling) {
        Set<Integer> fallen = new HashSet<>();
        List<ExpressSender.Express> sends = new ArrayList<>();
        List<R> sent = new ArrayList<>();
        for (int i = 0; i < records.size(); i++) {
            R record = records.get(i);
            Envelope envelope = record.envelope();
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
                sends.add(new ExpressSender.Express(
                        envelope,
                        record.id(),
                        record.dueAt(),
                        record.partition(),
                        settlement(record, envelope.target(), settling)));
                sent.add(record);
            } else {
                fallen.add(record.partition());
                fallbackUpTo.put(record.partition(), latestSequence);
                metrics.fellBack();
                park(record, settling, 0);
            }
        }
        if (!sender.hold(sends)) {
            sent.forEach(record -> park(record, settling, 0)); // stopping: park instead
        }
    }

    private <R extends Record> ExpressSender.Settlement settlement(
            R record, String target, Settling<? super R> settling) {
        return new ExpressSender.Settlement() {
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
                    parker.execute(() -> park(record, settling, 0));
                } catch (RuntimeException e) {
                    LOG.warn("Could not park express record {} (stopping): the intake reads it again", record.id());
                }
            }
        };
    }

    /** Writes an express record to the store, due as it was; settles once Redis holds it, retrying until it does. */
    private <R extends Record> void park(R record, Settling<? super R> settling, int failures) {
        CompletableFuture<List<WriteResult>> write;
        try {
            write = store.write(List.of(record.op()));
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
                    parker.schedule(() -> park(record, settling, failures + 1), backoff, TimeUnit.MILLISECONDS);
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

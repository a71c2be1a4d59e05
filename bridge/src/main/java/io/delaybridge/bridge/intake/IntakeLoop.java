package io.delaybridge.bridge.intake;

import io.delaybridge.bridge.errors.Failures;
import io.delaybridge.bridge.express.IntakeDelivery;
import io.delaybridge.bridge.log.RefusedRecords;
import io.delaybridge.bridge.probe.PipelineProbe;
import io.delaybridge.bridge.store.DelayStore;
import io.delaybridge.bridge.store.StoreDataLostException;
import io.dropwizard.lifecycle.Managed;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the intake topic in the consumer group and stores every record in the delay store.
 *
 * <p>Per poll: every record is translated into a store operation or a rejection; the operations are written to the
 * store in one pipelined batch; only once Redis acknowledged all of them are the rejections written to the deadletter
 * topic, and only once those are acknowledged is the offset committed. If any step fails, the consumer seeks back to
 * the first record of the batch and tries again after a backoff: writes are idempotent on (id, origin), so a record
 * read twice is stored once, and nothing is committed that Redis does not hold.
 *
 * <p>Up to {@link #MAX_BATCHES_IN_FLIGHT} polls are on their way to Redis at once: while Redis stores one, the loop
 * polls and translates the next, so the Redis round trip (with its fsync) and the Kafka work overlap instead of
 * adding up. Batches complete, and their offsets are committed, strictly in poll order; a failed batch discards the
 * ones behind it (their writes may land: stored once all the same) and the consumer seeks back to the earliest record
 * of all of them. A rebalance or a stop first waits for the batches in flight.
 *
 * <p>Offsets are committed at once for a batch that holds a record due soon (or a refused one), else at most
 * {@code intake.commitInterval} later ({@link OffsetCommitter}); a batch that Redis holds is never read again because its
 * commit failed: its offsets stay pending ({@link OffsetCommitter}).
 *
 * <p>A fence of the static member id rejoins, and stops the intake if fences keep coming ({@link IntakeMember}, {@link
 * FencedMember}).
 *
 * <p>Records already due (or due within {@code intake.expressWindow}) are delivered from here, never written to
 * Redis ({@link IntakeExpress}); records due beyond {@code intake.hotWindow} may wait in the far tier ({@link
 * FarPolicy}). The parts: {@link PollWriter} writes a poll (translation, position marks, the store call), {@link
 * IntakeRewind} reads again what a failed write did not store, {@link BatchesInFlight} keeps the polls on their way
 * to Redis, {@link BatchCompletion} completes them in poll order, {@link RefusedRecords} deadletters refused records,
 * {@link IntakeExpress} hands express records to the sending layer, {@link PollCommits} holds the commit rule (a poll
 * commits once its records are stored, refused ones deadlettered, express ones settled, in poll order) over the
 * {@link OffsetCommitter}, {@link IntakeRebalance} hands partitions over, {@link IntakeMember} keeps the consumer in
 * the group (connect, close, rejoin after a fence); {@link IntakeAssembly} builds them and wires them to each other;
 * this class runs the loop.
 *
 * <p>Each commit carries the store's incarnation in the offsets' metadata. On assignment the loop compares it with the
 * store's: a different one means Redis came back without the data those offsets promise. Then, and when a write
 * reports {@link StoreDataLostException}, the intake stops for good (its partitions, and so their shards, are
 * released), the health check turns unhealthy with the reason, and the log says what happened.
 *
 * <p>Each write batch also carries a position mark per partition ({@link StorePositions}); a store found to hold less
 * than it acknowledged (a fail-over with asynchronous replication) is read again from where it holds everything
 * ({@link StoreGapRepair}).
 */
public final class IntakeLoop implements Managed {

    private static final Logger LOG = LoggerFactory.getLogger(IntakeLoop.class);
    static final long WRITE_TIMEOUT_SECONDS = 60;
    /** How long a hand-over or a stop waits for express records to settle. */
    private static final long SETTLE_TIMEOUT_MILLIS = 30_000;
    /** Polls written to Redis and not yet completed, at most: bounds memory and what a failure reads again. */
    public static final int MAX_BATCHES_IN_FLIGHT = 2;

    private final DelayStore store;
    private final IntakeSettings settings;
    private final PartitionListener partitionListener;
    /** The sending layer; with exactly once, its shard transactions commit the express records' offsets. */
    private final IntakeDelivery sends;
    /** The parts this loop drives, built and wired to each other: consumer, express path, polls in flight, writer. */
    private final IntakeAssembly parts;

    private final CountDownLatch stopped = new CountDownLatch(1);

    private volatile boolean running;
    private volatile String stopReason;
    private Thread thread;
    /** Completes the batches Redis answered, in poll order. Intake thread only. */
    private final BatchCompletion completion;

    public IntakeLoop(
            IntakeClients clients,
            IntakeStore target,
            IntakeSettings settings,
            PartitionListener partitionListener,
            IntakeMetrics metrics,
            IntakeDelivery sends,
            PipelineProbe probe) {
        this.store = target.store();
        this.settings = settings;
        this.partitionListener = partitionListener;
        this.sends = sends;
        this.parts = IntakeAssembly.wire(clients, target, settings, partitionListener, metrics, sends, probe);
        this.completion = new BatchCompletion(
                this,
                parts.inFlight(),
                parts.writer(),
                parts.positions(),
                parts.rewinds(),
                parts.backoff(),
                parts.output());
        metrics.expressBuffer(parts.express()::heldRecords);
    }

    @Override
    public void start() {
        running = true;
        parts.member().connect();
        parts.express().start();
        thread = new Thread(this::run, "delay-intake");
        thread.start();
    }

    @Override
    public void stop() throws InterruptedException {
        running = false;
        parts.stopRequested().countDown();
        parts.member().wakeup();
        stopped.await(60, TimeUnit.SECONDS);
    }

    /** Why the loop stopped by itself (Redis lost its data), or null. */
    public String stopReason() {
        return stopReason;
    }

    /** The last loss of acknowledged records that could not be repaired (Kafka no longer had them), or null. */
    public String storeLoss() {
        return parts.member().storeLoss();
    }

    /** True while the loop runs and holds a consumer. */
    public boolean isRunning() {
        return running && stopped.getCount() > 0;
    }

    private void run() {
        try {
            while (running) {
                try {
                    read();
                } catch (FencedInstanceIdException e) {
                    if (!parts.member().rejoinAfterFence(parts.rewinds(), parts.stopRequested(), this::halt)) {
                        stopAsFenced();
                    }
                }
            }
        } catch (WakeupException e) {
            if (running) {
                LOG.error("Intake consumer woken up unexpectedly", e);
            }
        } catch (RuntimeException e) {
            LOG.error(
                    "Intake stopped by an unexpected error; offsets after the last stored batch are not committed", e);
        } finally {
            parts.member().closeLeaving();
            try {
                parts.express().stop();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            running = false;
            stopped.countDown();
        }
    }

    /** Subscribes the current consumer and reads until the loop stops or the group fences this member. */
    private void read() {
        parts.member()
                .consumer()
                .subscribe(
                        List.of(settings.topic()),
                        new IntakeRebalance(
                                this,
                                parts.member().consumer(),
                                parts.member().commits(),
                                partitionListener,
                                store,
                                parts.member().gaps(),
                                sends));
        parts.backoff().succeeded();
        while (running) {
            try {
                // with batches in flight, take only what is already fetched: the oldest batch is waiting
                ConsumerRecords<byte[], byte[]> records = parts.member()
                        .consumer()
                        .poll(
                                parts.inFlight().isEmpty()
                                        ? parts.member().commits().pollTimeout()
                                        : Duration.ZERO);
                if (!records.isEmpty()) {
                    submit(records);
                }
                if (!parts.inFlight().isEmpty()) {
                    completeBatches(
                            records.isEmpty()
                                    || parts.inFlight().size() >= MAX_BATCHES_IN_FLIGHT
                                    || parts.member().commits().settledWaiting(),
                            false,
                            true);
                }
                parts.member().commits().commitIfDue();
                parts.member().gaps().checkIdle(parts.inFlight().partitions());
            } catch (WakeupException | FencedInstanceIdException e) {
                throw e;
            } catch (KafkaException e) {
                // e.g. the broker is gone for a while: nothing was committed past what Redis holds, so go on
                LOG.warn(
                        "Intake poll failed, retrying in {} ms: {}",
                        parts.backoff().nextMillis(),
                        Failures.describe(e));
                sleepBackoff();
            }
        }
    }

    /** Translates a poll and starts writing it to the store, without waiting for Redis. */
    private void submit(ConsumerRecords<byte[], byte[]> records) {
        if (stopReason != null) {
            return; // Redis lost its data: store nothing over it (the records stay uncommitted)
        }
        parts.inFlight().add(parts.writer().write(records, OffsetCommitter.incarnationMarker(store.incarnation())));
    }

    /** Completes every batch in flight and waits for its express records: before partitions are handed over. */
    void completeAllBatches() {
        completeBatches(true, true, false);
        parts.member().commits().settleAll(SETTLE_TIMEOUT_MILLIS);
    }

    /** Completes batches in poll order ({@link BatchCompletion}). */
    private void completeBatches(boolean block, boolean all, boolean backOffOnFailure) {
        completion.complete(parts.member().commits(), parts.member().gaps(), block, all, backOffOnFailure);
    }

    /**
     * Drops every batch in flight and seeks back to the earliest record among them ({@link IntakeRewind}). A rebalance
     * may have taken partitions away meanwhile: their new owner reads them from the last commit.
     */
    void rewind() {
        parts.rewinds().rewind(parts.member().consumer());
    }

    /**
     * Another instance joined the group with this instance's {@code group.instance.id} and Kafka handed it this
     * instance's partitions, again and again: stop for good (the pump lets its shards go; their new owner fences
     * it in Redis anyway).
     */
    private void stopAsFenced() {
        stopReason = parts.member().fencedStopReason();
        LOG.error(stopReason);
        running = false;
        parts.member().release(parts.rewinds());
    }

    /** Stops reading for good: carrying on would commit offsets over records that Redis no longer holds. */
    void stopForDataLoss(String what) {
        stopReason = "Redis lost the data of the delay store: " + what + ". Intake and pump stopped; offsets are not "
                + "committed. Restore Redis (from its AOF or a replica) and restart; to accept the loss instead, see "
                + "docs/reliability.md";
        LOG.error(stopReason);
        running = false;
    }

    /** Interrupted: the loop ends. */
    void halt() {
        running = false;
    }

    void sleepBackoff() {
        if (!parts.backoff().sleep()) {
            running = false;
        }
    }
}

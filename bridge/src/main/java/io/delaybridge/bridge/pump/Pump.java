package io.delaybridge.bridge.pump;

import io.delaybridge.bridge.delivery.DeliveryRecords;
import io.delaybridge.bridge.delivery.SendFailures;
import io.delaybridge.bridge.delivery.TargetCatalog;
import io.delaybridge.bridge.faults.CrashPoint;
import io.delaybridge.bridge.store.ClaimBatch;
import io.delaybridge.bridge.store.ClaimedMessage;
import io.delaybridge.bridge.store.DelayStore;
import io.delaybridge.bridge.store.MessageRef;
import io.delaybridge.bridge.store.StoreException;
import io.delaybridge.bridge.store.StoreFencedException;
import io.delaybridge.schemas.CorruptEnvelopeException;
import io.delaybridge.schemas.Envelope;
import io.delaybridge.schemas.EnvelopeCodec;
import io.delaybridge.schemas.ErrorCode;
import io.dropwizard.lifecycle.Managed;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Releases due messages from the shards this instance owns, on one thread.
 *
 * <p>The pump sleeps until the earliest due time of its shards, and is woken at once when a shard receives an
 * earlier message ({@link #wake}), when a send completes, or when ownership changes. There is no polling interval:
 * the only periodic work is returning expired leases, every half lease.
 *
 * <p>Delivery is two-phase: a claim moves a bounded batch into the store's in-flight set under a lease; each message
 * is sent; the producer's acknowledgement queues an {@link Outcome}; the pump thread then acks delivered messages in
 * batches, schedules failed ones for a retry with backoff, and sends exhausted ones to the deadletter topic before
 * deleting them. At most {@code maxInFlight} messages are outstanding: a slow target pauses claiming, never the heap.
 */
public final class Pump implements Managed {

    private static final Logger LOG = LoggerFactory.getLogger(Pump.class);
    private static final long STORE_RETRY_MILLIS = 250;
    private static final long FAILURE_LOG_INTERVAL_MILLIS = 10_000;

    private final DelayStore store;
    private final Producer<byte[], byte[]> producer;
    private final TargetCatalog catalog;
    private final RetryPolicy retryPolicy;
    private final PumpSettings settings;
    private final String deadletterTopic;
    private final PumpMetrics metrics;
    private final Clock clock;

    private final Map<Integer, OwnedShard> owned = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<Outcome> outcomes = new ConcurrentLinkedQueue<>();
    private final AtomicInteger inFlight = new AtomicInteger();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private boolean signalled;
    private volatile boolean running;
    private volatile boolean paused;
    private Thread thread;
    private long lastFailureLoggedAt = Long.MIN_VALUE / 2;

    /** Redis' clock minus this host's, as last measured: due times are Redis times. */
    private volatile long clockOffsetMillis;

    public Pump(
            DelayStore store,
            Producer<byte[], byte[]> producer,
            TargetCatalog catalog,
            RetryPolicy retryPolicy,
            PumpSettings settings,
            String deadletterTopic,
            PumpMetrics metrics,
            Clock clock) {
        this.store = store;
        this.producer = producer;
        this.catalog = catalog;
        this.retryPolicy = retryPolicy;
        this.settings = settings;
        this.deadletterTopic = deadletterTopic;
        this.metrics = metrics;
        this.clock = clock;
        store.onWake(this::wake);
    }

    @Override
    public void start() {
        running = true;
        thread = new Thread(this::run, "delay-pump");
        thread.start();
    }

    @Override
    public void stop() throws InterruptedException {
        running = false;
        signal();
        if (thread != null) {
            thread.join(TimeUnit.SECONDS.toMillis(30));
        }
        producer.flush();
        processOutcomes();
    }

    /**
     * Takes over shards the consumer group assigned to this instance. Called on the intake's thread; the fencing
     * epochs are taken on the pump's thread, so this never blocks on or fails with Redis.
     */
    public void assign(Collection<Integer> shards) {
        for (int shard : shards) {
            if (shard >= store.shardCount()) {
                LOG.warn("Intake partition {} has no shard (the store has {} shards): nothing to pump for it",
                        shard, store.shardCount());
                continue;
            }
            owned.put(shard, new OwnedShard(shard));
        }
        signal();
    }

    /**
     * Lets go of shards the consumer group took away: stops claiming in them and waits, up to the configured drain
     * time, until their in-flight messages are acknowledged, so a graceful rebalance delivers nothing twice. Called on
     * the intake's thread, before the partitions move to another instance.
     */
    public void revoke(Collection<Integer> shards) {
        List<OwnedShard> leaving = new ArrayList<>();
        for (int shard : shards) {
            OwnedShard state = owned.get(shard);
            if (state != null) {
                state.revoked = true;
                leaving.add(state);
            }
        }
        signal();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(settings.revokeDrainMillis());
        lock.lock();
        try {
            while (leaving.stream().anyMatch(s -> s.outstanding.get() > 0) && running) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    LOG.warn("Shards {} still had messages in flight when revoked; their leases return them", shards);
                    break;
                }
                changed.awaitNanos(Math.min(left, TimeUnit.MILLISECONDS.toNanos(50)));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            lock.unlock();
        }
        for (OwnedShard state : leaving) {
            owned.remove(state.shard, state);
        }
        if (!leaving.isEmpty()) {
            LOG.info("Stopped pumping shards {}", shards);
        }
    }

    /** Stops or restarts claiming; messages already in flight still finish. */
    public void setPaused(boolean paused) {
        this.paused = paused;
        signal();
    }

    public boolean paused() {
        return paused;
    }

    /** The shards this instance pumps now. */
    public List<Integer> ownedShards() {
        return owned.values().stream().filter(s -> !s.revoked).map(s -> s.shard).sorted().toList();
    }

    public int inFlight() {
        return inFlight.get();
    }

    /** Called by the store when a shard received a message due earlier than all it held. */
    void wake(int shard, long dueAt) {
        OwnedShard state = owned.get(shard);
        if (state != null) {
            state.woken(dueAt);
            signal();
        }
    }

    private void signal() {
        lock.lock();
        try {
            signalled = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private long redisNow() {
        return clock.millis() + clockOffsetMillis;
    }

    private void run() {
        while (running) {
            long wakeAt;
            try {
                processOutcomes();
                wakeAt = pumpOwnedShards();
            } catch (RuntimeException e) {
                warnThrottled("Pump cycle failed, retrying every {} ms: {}", STORE_RETRY_MILLIS,
                        SendFailures.describe(e));
                wakeAt = redisNow() + STORE_RETRY_MILLIS;
            }
            awaitUntil(wakeAt);
        }
    }

    /** Once per interval: an outage retried every 250 ms would otherwise flood the log. */
    private void warnThrottled(String format, Object... args) {
        long now = clock.millis();
        if (now - lastFailureLoggedAt >= FAILURE_LOG_INTERVAL_MILLIS) {
            LOG.warn(format, args);
            lastFailureLoggedAt = now;
        }
    }

    /**
     * Claims and sends what is due; returns the Redis time at which the pump next has work. With every in-flight
     * place taken, due messages are no reason to wake: the next outcome is, and it signals.
     */
    private long pumpOwnedShards() {
        long next = Long.MAX_VALUE;
        for (OwnedShard shard : owned.values()) {
            if (shard.revoked) {
                continue;
            }
            if (!acquired(shard)) {
                next = Math.min(next, redisNow() + STORE_RETRY_MILLIS);
                continue;
            }
            try {
                reclaimIfDue(shard);
                if (!paused) {
                    claimDue(shard);
                }
            } catch (StoreFencedException e) {
                LOG.warn(e.getMessage());
                shard.revoked = true;
                owned.remove(shard.shard, shard);
                continue;
            }
            if (!paused && inFlight.get() < settings.maxInFlight()) {
                next = Math.min(next, Math.min(shard.nextDueAt, shard.wokenAt.get()));
            }
            next = Math.min(next, shard.reclaimAt);
        }
        return next;
    }

    private boolean acquired(OwnedShard shard) {
        if (shard.epoch != OwnedShard.NOT_ACQUIRED) {
            return true;
        }
        try {
            shard.epoch = store.acquire(shard.shard);
            LOG.info("Pumping shard {} with epoch {}", shard.shard, shard.epoch);
            return true;
        } catch (StoreException e) {
            warnThrottled("Could not take shard {} yet, retrying every {} ms: {}", shard.shard, STORE_RETRY_MILLIS,
                    e.getMessage());
            return false;
        }
    }

    private void reclaimIfDue(OwnedShard shard) {
        if (redisNow() < shard.reclaimAt) {
            return;
        }
        int returned = store.reclaim(shard.shard, shard.epoch, settings.batchSize());
        if (returned > 0) {
            metrics.reclaimed.mark(returned);
            LOG.info("Returned {} messages with expired leases to shard {}", returned, shard.shard);
            shard.nextDueAt = Long.MIN_VALUE;
        }
        shard.reclaimAt = redisNow() + (returned == settings.batchSize() ? 0 : settings.leaseMillis() / 2);
    }

    private void claimDue(OwnedShard shard) {
        while (running && !shard.revoked) {
            long due = Math.min(shard.nextDueAt, shard.wokenAt.get());
            int room = settings.maxInFlight() - inFlight.get();
            if (due > redisNow() || room <= 0) {
                return;
            }
            int want = Math.min(settings.batchSize(), room);
            shard.wokenAt.set(Long.MAX_VALUE);
            long before = clock.millis();
            ClaimBatch batch = store.claim(shard.shard, shard.epoch, want, settings.leaseMillis());
            long after = clock.millis();
            clockOffsetMillis = batch.redisNow() - (before + after) / 2;
            List<ClaimedMessage> messages = batch.messages();
            boolean full = messages.size() >= want;
            shard.nextDueAt = full ? Long.MIN_VALUE : (batch.hasNext() ? batch.nextDueAt() : Long.MAX_VALUE);
            if (!messages.isEmpty()) {
                metrics.claimBatch.update(messages.size());
                inFlight.addAndGet(messages.size());
                shard.outstanding.addAndGet(messages.size());
                CrashPoint.AFTER_CLAIM_BEFORE_SEND.reach();
                for (ClaimedMessage message : messages) {
                    send(shard, message);
                }
            }
            if (!full) {
                return;
            }
        }
    }

    private void send(OwnedShard shard, ClaimedMessage message) {
        Envelope envelope;
        try {
            envelope = EnvelopeCodec.decode(message.envelope());
        } catch (CorruptEnvelopeException e) {
            sendToDeadletter(shard, message, DeliveryRecords.corruptEnvelope(
                    deadletterTopic, message.ref().id(), message.dueAt(), message.attempt(), message.envelope(),
                    "stored message " + message.ref().id() + " cannot be decoded: " + e.getMessage()),
                    ErrorCode.CORRUPT_ENVELOPE);
            return;
        }
        TargetCatalog.TopicState target = catalog.lookup(envelope.target());
        if (target.missing()) {
            report(Outcome.failed(shard, message, new UnknownTopicOrPartitionException(
                    "target topic " + envelope.target() + " does not exist"), ErrorCode.DELIVERY_FAILED));
            return;
        }
        if (envelope.partition() != null && target.known() && envelope.partition() >= target.partitions()) {
            report(Outcome.failed(shard, message, new UnknownTopicOrPartitionException(
                    "delay-partition " + envelope.partition() + " does not exist: target topic "
                            + envelope.target() + " has " + target.partitions() + " partitions"),
                    ErrorCode.DELIVERY_FAILED));
            return;
        }
        ProducerRecord<byte[], byte[]> record =
                DeliveryRecords.toTarget(envelope, message.ref().id(), message.dueAt(), message.attempt());
        try {
            producer.send(record, (metadata, error) -> report(error == null
                    ? Outcome.delivered(shard, message, metadata.timestamp())
                    : Outcome.failed(shard, message, error, ErrorCode.DELIVERY_FAILED)));
        } catch (RuntimeException e) {
            report(Outcome.failed(shard, message, e, ErrorCode.DELIVERY_FAILED));
        }
    }

    private void sendToDeadletter(
            OwnedShard shard, ClaimedMessage message, ProducerRecord<byte[], byte[]> record, ErrorCode code) {
        try {
            producer.send(record, (metadata, error) -> report(error == null
                    ? Outcome.deadlettered(shard, message, code)
                    : Outcome.deadletterFailed(shard, message, error)));
        } catch (RuntimeException e) {
            report(Outcome.deadletterFailed(shard, message, e));
        }
    }

    private void report(Outcome outcome) {
        outcomes.add(outcome);
        signal();
    }

    /** Acks, retries and deadletters what the producer reported, batching acks per shard. */
    private void processOutcomes() {
        Map<OwnedShard, List<Outcome>> finished = new HashMap<>();
        Outcome outcome;
        while ((outcome = outcomes.poll()) != null) {
            switch (outcome.kind()) {
                case DELIVERED -> {
                    metrics.delivered.mark();
                    metrics.lateness.update(Math.max(0, outcome.deliveredAt() - outcome.message().dueAt()));
                    finished.computeIfAbsent(outcome.shard(), s -> new ArrayList<>()).add(outcome);
                }
                case DEADLETTERED -> {
                    metrics.deadlettered.mark(outcome.code());
                    finished.computeIfAbsent(outcome.shard(), s -> new ArrayList<>()).add(outcome);
                }
                case FAILED -> handleFailure(outcome);
                case DEADLETTER_FAILED -> {
                    LOG.warn("Could not write message {} to the deadletter topic {}: {}",
                            outcome.message().ref().id(), deadletterTopic, SendFailures.describe(outcome.error()));
                    retryLater(outcome.shard(), outcome.message(), retryPolicy.backoffMillis(1));
                }
            }
        }
        if (!finished.isEmpty()) {
            CrashPoint.AFTER_SEND_BEFORE_ACK.reach();
        }
        finished.forEach(this::ack);
    }

    private void handleFailure(Outcome failure) {
        ClaimedMessage message = failure.message();
        Exception error = failure.error();
        if (error instanceof UnknownTopicOrPartitionException) {
            catalog.forget(decodeTarget(message));
        }
        boolean permanent = SendFailures.isPermanent(error);
        if (permanent || retryPolicy.exhausted(message.attempt())) {
            Envelope envelope = EnvelopeCodec.decode(message.envelope());
            String reason = "delivery to " + envelope.target() + " failed after " + message.attempt()
                    + (message.attempt() == 1 ? " attempt" : " attempts")
                    + (permanent ? " (not retriable)" : "") + ": " + SendFailures.describe(error);
            LOG.info("Deadlettering message {}: {}", message.ref().id(), reason);
            sendToDeadletter(failure.shard(), message, DeliveryRecords.failedDelivery(
                    deadletterTopic, envelope, message.ref().id(), message.dueAt(), message.attempt(),
                    failure.code(), reason), failure.code());
        } else {
            metrics.retried.mark();
            retryLater(failure.shard(), message, retryPolicy.backoffMillis(message.attempt()));
        }
    }

    private String decodeTarget(ClaimedMessage message) {
        return EnvelopeCodec.decode(message.envelope()).target();
    }

    private void retryLater(OwnedShard shard, ClaimedMessage message, long backoffMillis) {
        try {
            store.retry(shard.shard, shard.epoch, message.ref(), redisNow() + backoffMillis);
        } catch (StoreFencedException e) {
            LOG.warn("{}; message {} is returned by its lease", e.getMessage(), message.ref().id());
        } catch (StoreException e) {
            LOG.warn("Could not schedule a retry of message {}, its lease returns it: {}",
                    message.ref().id(), e.getMessage());
        }
        finish(shard, 1);
    }

    private void ack(OwnedShard shard, List<Outcome> done) {
        List<MessageRef> refs = new ArrayList<>(done.size());
        for (Outcome outcome : done) {
            refs.add(outcome.message().ref());
        }
        try {
            store.ack(shard.shard, shard.epoch, refs);
        } catch (StoreFencedException e) {
            LOG.warn("{}; {} delivered messages stay in flight until their leases expire", e.getMessage(),
                    refs.size());
        } catch (StoreException e) {
            // Delivered but not deleted: the lease returns them and they are delivered again (at least once).
            LOG.warn("Could not acknowledge {} delivered messages in shard {}: {}", refs.size(), shard.shard,
                    e.getMessage());
        }
        finish(shard, refs.size());
    }

    private void finish(OwnedShard shard, int count) {
        inFlight.addAndGet(-count);
        shard.outstanding.addAndGet(-count);
        signal();
    }

    private void awaitUntil(long redisWakeAt) {
        lock.lock();
        try {
            while (running && !signalled) {
                long now = redisNow();
                if (redisWakeAt <= now) {
                    break; // also for Long.MIN_VALUE ("at once"), where a subtraction would overflow
                }
                long waitMillis = redisWakeAt == Long.MAX_VALUE ? Long.MAX_VALUE : redisWakeAt - now;
                // A due time is an exact millisecond: sleep to it, not to a tick.
                changed.awaitNanos(TimeUnit.MILLISECONDS.toNanos(Math.min(waitMillis, settings.leaseMillis() / 2)));
                if (waitMillis > settings.leaseMillis() / 2) {
                    break; // re-evaluate: leases and clock offset
                }
            }
            signalled = false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running = false;
        } finally {
            lock.unlock();
        }
    }
}

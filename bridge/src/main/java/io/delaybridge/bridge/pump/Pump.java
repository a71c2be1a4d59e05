package io.delaybridge.bridge.pump;

import io.delaybridge.bridge.delivery.DeliveryRecords;
import io.delaybridge.bridge.delivery.MissingTopicException;
import io.delaybridge.bridge.delivery.SendFailures;
import io.delaybridge.bridge.delivery.TargetCatalog;
import io.delaybridge.bridge.faults.CrashPoint;
import io.delaybridge.bridge.store.ClaimBatch;
import io.delaybridge.bridge.store.ClaimedMessage;
import io.delaybridge.bridge.store.DelayStore;
import io.delaybridge.bridge.store.MessageRef;
import io.delaybridge.bridge.store.StoreException;
import io.delaybridge.bridge.store.StoreFencedException;
import io.delaybridge.bridge.store.StoreUnavailableException;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Releases due messages from the shards this instance owns, on one thread.
 *
 * <p>The pump sleeps until the earliest due time of its shards, and is woken at once when a shard receives an
 * earlier message ({@link #wake}), when sends complete or acks are answered, or when ownership changes. There is no
 * polling interval: the only periodic work is returning expired leases, every half lease, and reading Redis' clock
 * once a second while no claim does.
 *
 * <p>Delivery is two-phase: a claim moves a bounded batch into the store's in-flight set under a lease; each message
 * is sent; the producer's acknowledgement queues an {@link Outcome}; the pump thread then acks delivered messages in
 * batches, schedules failed ones for a retry with backoff, and sends exhausted ones to the deadletter topic before
 * deleting them. At most {@code maxInFlight} messages are outstanding: a slow target pauses claiming, never the heap.
 *
 * <p>Claims look ahead ({@code pump.lookAhead}): they also take messages due a little later, which the pump holds in
 * due order and sends, on a thread of their own ({@link DueReleaser}), when a lower bound of Redis' clock
 * ({@link RedisClockBound}) reaches their due time. The claim's round trip is then not part of the lateness, and
 * nothing is sent early whatever this host's clock says.
 *
 * <p>Round trips to Redis overlap instead of adding up: the claims of every due shard are issued together (pipelined
 * on one connection, so one Redis event-loop cycle and one fsync serve them all), and acks are sent without waiting
 * for their answers; a message's in-flight place is freed when its ack is answered.
 */
public final class Pump implements Managed {

    private static final Logger LOG = LoggerFactory.getLogger(Pump.class);
    private static final long STORE_RETRY_MILLIS = 250;
    private static final long FAILURE_LOG_INTERVAL_MILLIS = 10_000;
    /**
     * How old the measured offset between this host's clock and Redis' may grow: a host clock that is stepped (by an
     * operator, by NTP) is noticed within this time, also while no claim runs.
     */
    private static final long CLOCK_CHECK_MILLIS = 1_000;
    /** Bounds one ack script: Redis runs it alone, so a long one delays every other client. */
    private static final int MAX_ACKS_PER_CALL = 1_000;

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
    /** Set when an outcome is queued and the pump has not been signalled for it: one signal per burst of sends. */
    private final AtomicBoolean outcomesSignalled = new AtomicBoolean();
    private final AtomicInteger inFlight = new AtomicInteger();
    /** Acks sent to the store and not yet answered. */
    private final AtomicInteger pendingAcks = new AtomicInteger();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private boolean signalled;
    private volatile boolean running;
    private volatile boolean paused;
    private Thread thread;
    private long lastFailureLoggedAt = Long.MIN_VALUE / 2;

    /** Redis' clock minus this host's, as last measured: due times are Redis times. */
    private volatile long clockOffsetMillis;
    /** When {@link #clockOffsetMillis} was measured, as {@link System#nanoTime}. */
    private long clockMeasuredAtNanos = System.nanoTime() - TimeUnit.DAYS.toNanos(1);
    /** Sends claimed messages at their due time. */
    private final DueReleaser releaser;
    /** Redis' time of the last claim round (pump thread only): rounds come at most every half look-ahead. */
    private long lastRoundAt = Long.MIN_VALUE / 2;
    /** Delivered and deadlettered messages not yet acked, per shard (pump thread only; see {@link #flushAcks}). */
    private final Map<OwnedShard, List<Outcome>> unacked = new HashMap<>();
    /** When the oldest of {@link #unacked} was queued, as {@link System#nanoTime}. */
    private long unackedSinceNanos;

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
        this.releaser = new DueReleaser(this::release, settings.lookAheadMillis());
        store.onWake(this::wake);
    }

    @Override
    public void start() {
        running = true;
        releaser.start();
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
        releaser.stop();
        producer.flush();
        if (thread == null || !thread.isAlive()) {
            // the pump thread's own state (unacked outcomes): only once it has ended; if it hangs, leases return them
            processOutcomes();
            flushAcks(true);
        }
        awaitAcks(TimeUnit.SECONDS.toNanos(10));
    }

    /** Waits until every ack sent has been answered, or the time is up (their leases then return the messages). */
    private void awaitAcks(long timeoutNanos) {
        if (!awaitUntilTrue(() -> pendingAcks.get() == 0, timeoutNanos)) {
            LOG.warn("{} acks were still unanswered at stop; their messages return when their leases expire",
                    pendingAcks.get());
        }
    }

    /** Waits, woken by {@link #signal}, until {@code done} holds or the time is up; returns whether it holds. */
    private boolean awaitUntilTrue(BooleanSupplier done, long timeoutNanos) {
        long deadline = System.nanoTime() + timeoutNanos;
        lock.lock();
        try {
            while (!done.getAsBoolean()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                changed.awaitNanos(Math.min(left, TimeUnit.MILLISECONDS.toNanos(50)));
            }
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return done.getAsBoolean();
        } finally {
            lock.unlock();
        }
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
        boolean drained = awaitUntilTrue(() -> !running || leaving.stream().allMatch(s -> s.outstanding.get() == 0),
                TimeUnit.MILLISECONDS.toNanos(settings.revokeDrainMillis()));
        if (!drained) {
            LOG.warn("Shards {} still had messages in flight when revoked; their leases return them", shards);
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

    /** Records Redis' time {@code redisMillis}, read between host times {@code before} and now. */
    private void measuredRedisTime(long redisMillis, long before) {
        clockOffsetMillis = redisMillis - (before + clock.millis()) / 2;
        clockMeasuredAtNanos = System.nanoTime();
        releaser.observe(redisMillis, clockMeasuredAtNanos);
    }

    /**
     * Reads Redis' clock when the last reading is older than {@link #CLOCK_CHECK_MILLIS}. Claims read it as a side
     * effect; this covers the idle pump, which would otherwise sleep on a stale offset after its host clock was set
     * back (everything would look an hour away, so nothing would be claimed and the offset never corrected).
     */
    private void checkClock() {
        if (System.nanoTime() - clockMeasuredAtNanos < TimeUnit.MILLISECONDS.toNanos(CLOCK_CHECK_MILLIS)) {
            return;
        }
        long before = clock.millis();
        try {
            measuredRedisTime(store.now(), before);
        } catch (StoreException e) {
            // Redis is out of reach: nothing can be claimed either; the store calls report it
        }
    }

    private void run() {
        while (running) {
            long wakeAt;
            try {
                processOutcomes();
                wakeAt = Math.min(pumpOwnedShards(), ackFlushAt());
            } catch (RuntimeException e) {
                warnThrottled("Pump cycle failed, retrying every {} ms: {}", STORE_RETRY_MILLIS,
                        SendFailures.describe(e));
                wakeAt = redisNow() + STORE_RETRY_MILLIS;
            }
            awaitUntil(nanosUntilRedisTime(wakeAt));
        }
    }

    /** How long until Redis' clock, as estimated from this host's, shows {@code redisAt}. */
    private long nanosUntilRedisTime(long redisAt) {
        if (redisAt == Long.MAX_VALUE) {
            return Long.MAX_VALUE;
        }
        long now = redisNow();
        return redisAt <= now ? 0 : TimeUnit.MILLISECONDS.toNanos(redisAt - now);
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
        if (!owned.isEmpty()) {
            checkClock();
        }
        List<OwnedShard> live = new ArrayList<>(owned.size());
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
            } catch (StoreFencedException e) {
                letGo(shard, e);
                continue;
            }
            live.add(shard);
        }
        if (!paused) {
            claimDue(live);
        }
        for (OwnedShard shard : live) {
            if (shard.revoked) {
                continue;
            }
            if (!paused && inFlight.get() < settings.maxInFlight()) {
                next = Math.min(next, roundTime(Math.min(shard.nextDueAt, shard.wokenAt.get())));
            }
            long reclaimInMillis = TimeUnit.NANOSECONDS.toMillis(shard.reclaimAtNanos - System.nanoTime());
            next = Math.min(next, redisNow() + reclaimInMillis);
        }
        return next;
    }

    /**
     * When the claim round that takes a message due at {@code dueAt} should run (MIN, claim now, and MAX, nothing
     * due, stay as they are): not before the look-ahead, and, so that one round serves many shards and each claim
     * many messages, not within half a look-ahead of the last round unless the message would then be claimed less
     * than half a look-ahead before its due time.
     *
     * <p>Without that bound a steady stream was claimed as it entered the look-ahead window, one message at a time:
     * at 5,000 records/s over 16 shards the pump ran ~1,500 claims a second of 3-4 messages each, and a longer
     * look-ahead only moved the window. With it, a round runs at most every half look-ahead and takes what falls due
     * in the next whole look-ahead: each message is claimed between one and one half look-ahead before its due time.
     */
    private long roundTime(long dueAt) {
        if (dueAt == Long.MIN_VALUE || dueAt == Long.MAX_VALUE) {
            return dueAt;
        }
        long lookAhead = settings.lookAheadMillis();
        long latest = dueAt - lookAhead / 2;
        return Math.max(dueAt - lookAhead, Math.min(lastRoundAt + lookAhead / 2, latest));
    }

    /** A fenced shard has a newer owner: stop pumping it. */
    private void letGo(OwnedShard shard, StoreFencedException e) {
        LOG.warn(e.getMessage());
        shard.revoked = true;
        owned.remove(shard.shard, shard);
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

    /**
     * Returns the shard's expired leases every half lease. Redis' clock decides which leases expired; the interval is
     * timed on this host's monotonic clock, because the pump learns its clock's offset from Redis only with its first
     * claim (a reclaim time computed before that, with a host clock an hour fast, lay an hour late).
     */
    private void reclaimIfDue(OwnedShard shard) {
        if (System.nanoTime() - shard.reclaimAtNanos < 0) {
            return;
        }
        int returned = store.reclaim(shard.shard, shard.epoch, settings.batchSize());
        if (returned > 0) {
            metrics.reclaimed.mark(returned);
            LOG.info("Returned {} messages with expired leases to shard {}", returned, shard.shard);
            shard.nextDueAt = Long.MIN_VALUE;
        }
        shard.reclaimAtNanos = System.nanoTime()
                + (returned == settings.batchSize() ? 0 : TimeUnit.MILLISECONDS.toNanos(settings.leaseMillis() / 2));
    }

    /**
     * Claims from every due shard at once, sends what came back, and repeats while a claim came back full and there
     * is room in flight. The claims of one round are issued together, so they reach Redis pipelined: one round trip
     * (and, with appendfsync always, one fsync) for all due shards instead of one per shard. The free in-flight places
     * are shared among the due shards.
     */
    private void claimDue(List<OwnedShard> shards) {
        boolean firstOfRound = true;
        while (running) {
            processOutcomes();
            int room = settings.maxInFlight() - inFlight.get();
            if (room <= 0) {
                return;
            }
            long now = redisNow();
            long lookAhead = settings.lookAheadMillis();
            if (firstOfRound) {
                long roundAt = Long.MAX_VALUE;
                for (OwnedShard shard : shards) {
                    if (!shard.revoked) {
                        roundAt = Math.min(roundAt, roundTime(Math.min(shard.nextDueAt, shard.wokenAt.get())));
                    }
                }
                if (roundAt > now) {
                    return; // woken early (an outcome, a later message): the round comes at its time
                }
                lastRoundAt = now;
                firstOfRound = false;
            }
            List<OwnedShard> due = new ArrayList<>(shards.size());
            for (OwnedShard shard : shards) {
                if (!shard.revoked && Math.min(shard.nextDueAt, shard.wokenAt.get()) <= now + lookAhead
                        && due.size() < room) {
                    due.add(shard);
                }
            }
            if (due.isEmpty()) {
                return;
            }
            int want = Math.max(1, Math.min(settings.batchSize(), room / due.size()));
            long before = clock.millis();
            List<CompletableFuture<ClaimBatch>> claims = new ArrayList<>(due.size());
            for (OwnedShard shard : due) {
                shard.wokenAt.set(Long.MAX_VALUE);
                // reserved before the claim: revoke() waits for it, so a claim under way is sent and acked before
                // the shard moves (a graceful rebalance delivers nothing twice)
                shard.outstanding.addAndGet(want);
                CompletableFuture<ClaimBatch> claim;
                try {
                    claim = store.claimAsync(shard.shard, shard.epoch, want, settings.leaseMillis(), lookAhead);
                } catch (RuntimeException e) {
                    claim = CompletableFuture.failedFuture(e);
                }
                claims.add(claim);
            }
            boolean anyFull = false;
            RuntimeException failure = null;
            for (int i = 0; i < due.size(); i++) {
                OwnedShard shard = due.get(i);
                ClaimBatch batch;
                try {
                    batch = awaitStore(claims.get(i), "claim on shard " + shard.shard);
                } catch (StoreFencedException e) {
                    unreserve(shard, want);
                    letGo(shard, e);
                    continue;
                } catch (RuntimeException e) {
                    unreserve(shard, want);
                    shard.nextDueAt = Long.MIN_VALUE; // its wake-up was taken: claim again in the next cycle
                    failure = failure == null ? e : failure;
                    continue;
                }
                if (i == 0) {
                    measuredRedisTime(batch.redisNow(), before);
                } else {
                    releaser.observe(batch.redisNow(), System.nanoTime());
                }
                anyFull |= released(shard, batch, want);
            }
            if (failure != null) {
                throw failure;
            }
            if (!anyFull) {
                return;
            }
        }
    }

    private void unreserve(OwnedShard shard, int places) {
        shard.outstanding.addAndGet(-places);
        signal();
    }

    /**
     * Hands a claimed batch to the release thread, which sends each message at its due time, turning the claim's
     * reservation of {@code want} places into its messages; returns whether it was full (the shard may hold more that
     * is due).
     */
    private boolean released(OwnedShard shard, ClaimBatch batch, int want) {
        List<ClaimedMessage> messages = batch.messages();
        boolean full = messages.size() >= want;
        shard.nextDueAt = full ? Long.MIN_VALUE : (batch.hasNext() ? batch.nextDueAt() : Long.MAX_VALUE);
        if (messages.size() < want) {
            unreserve(shard, want - messages.size());
        }
        if (!messages.isEmpty()) {
            metrics.claimBatch.update(messages.size());
            inFlight.addAndGet(messages.size());
            CrashPoint.AFTER_CLAIM_BEFORE_SEND.reach();
            releaser.hold(shard, messages);
        }
        return full && !shard.revoked;
    }

    /** Waits for a store call; a failure comes out as the store's exception. */
    private <T> T awaitStore(CompletableFuture<T> future, String operation) {
        try {
            return future.get(settings.leaseMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            throw new StoreUnavailableException(operation + " failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new StoreUnavailableException(operation + ": no answer within the lease ("
                    + settings.leaseMillis() + " ms)", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreUnavailableException(operation + " interrupted", e);
        }
    }

    /**
     * Sends a message that fell due, on the release thread. Whatever goes wrong comes back as a failed outcome (retried,
     * and its in-flight place freed), never as an exception that would end the thread.
     */
    private void release(OwnedShard shard, ClaimedMessage message) {
        try {
            send(shard, message);
        } catch (RuntimeException e) {
            LOG.warn("Could not send message {}: {}", message.ref().id(), SendFailures.describe(e));
            report(Outcome.failed(shard, message, e, ErrorCode.DELIVERY_FAILED));
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
        if (target.missing() && !catalog.missingTopics().createdBySend()) {
            report(Outcome.failed(shard, message, new MissingTopicException(envelope.target()),
                    ErrorCode.DELIVERY_FAILED));
            return;
        }
        // a missing topic that the broker creates on first use: the send creates it, as any producer's would
        if (envelope.partition() != null && target.known() && !target.missing()
                && envelope.partition() >= target.partitions()) {
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
        if (!outcomesSignalled.getAndSet(true)) {
            signal();
        }
    }

    /** Acks, retries and deadletters what the producer reported, batching acks per shard. */
    private void processOutcomes() {
        outcomesSignalled.set(false);
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
            if (unacked.isEmpty()) {
                unackedSinceNanos = System.nanoTime();
            }
            finished.forEach((shard, done) -> unacked.computeIfAbsent(shard, s -> new ArrayList<>()).addAll(done));
        }
        flushAcks(false);
    }

    /**
     * Acks what was delivered, per shard, once the oldest unacked outcome is half a look-ahead old, a batch's worth
     * has gathered, a shard is being revoked, or the pump stops ({@code all}).
     *
     * <p>Acked as their outcomes came in, a steady stream was acked a few messages per call: every producer answer
     * and every ack answer woke the pump, which acked whatever had arrived since (at 5,000 records/s, thousands of ack
     * calls a second; each a script run and, with appendfsync always, often an fsync). Waiting half a look-ahead
     * gathers them; it costs nothing but the in-flight places they hold that much longer (a crash in that time
     * delivers them again, as it would any message delivered and not yet acked).
     */
    private void flushAcks(boolean all) {
        if (unacked.isEmpty()) {
            return;
        }
        boolean due = all || System.nanoTime() - unackedSinceNanos >= ackDelayNanos();
        if (!due) {
            int count = 0;
            for (Map.Entry<OwnedShard, List<Outcome>> entry : unacked.entrySet()) {
                count += entry.getValue().size();
                due |= entry.getKey().revoked;
            }
            due |= count >= settings.batchSize();
        }
        if (due) {
            unacked.forEach(this::ack);
            unacked.clear();
        }
    }

    private long ackDelayNanos() {
        return TimeUnit.MILLISECONDS.toNanos(settings.lookAheadMillis() / 2);
    }

    /** The Redis time by which the pump must wake to flush unacked outcomes; MAX if there are none. */
    private long ackFlushAt() {
        if (unacked.isEmpty()) {
            return Long.MAX_VALUE;
        }
        long leftNanos = unackedSinceNanos + ackDelayNanos() - System.nanoTime();
        return redisNow() + Math.max(0, TimeUnit.NANOSECONDS.toMillis(leftNanos) + 1);
    }

    private void handleFailure(Outcome failure) {
        ClaimedMessage message = failure.message();
        Exception error = failure.error();
        if (error instanceof UnknownTopicOrPartitionException) {
            catalog.forget(decodeTarget(message));
        }
        if (error instanceof MissingTopicException missing) {
            waitForMissingTopic(failure, missing);
            return;
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

    /**
     * A message for a topic that does not exist (and that the broker does not create on first use) waits for it once,
     * {@code pump.missingTopicWait} after its first attempt; then it goes to the deadletter topic, instead of through
     * the whole retry schedule. A later attempt (after that wait, or after a retry or a crash) does not wait again: a
     * retried message's due time is the time of its retry, so it cannot tell how long it has waited.
     */
    private void waitForMissingTopic(Outcome failure, MissingTopicException missing) {
        ClaimedMessage message = failure.message();
        long wait = catalog.missingTopics().waitMillis();
        if (message.attempt() == 1 && wait > 0) {
            metrics.retried.mark();
            retryLater(failure.shard(), message, wait);
            return;
        }
        Envelope envelope = EnvelopeCodec.decode(message.envelope());
        String reason = "target topic " + missing.topic() + " does not exist (attempt " + message.attempt() + "; it "
                + "waited " + wait + " ms for it after its first attempt, and the broker does not create topics on "
                + "first use). Create the topic, then replay this record from the deadletter topic";
        LOG.info("Deadlettering message {}: {}", message.ref().id(), reason);
        sendToDeadletter(failure.shard(), message, DeliveryRecords.failedDelivery(deadletterTopic, envelope,
                message.ref().id(), message.dueAt(), message.attempt(), failure.code(), reason), failure.code());
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

    /**
     * Deletes delivered messages without waiting for Redis: the pump claims on while acks are on their way. An ack
     * that fails leaves its messages in flight; their lease returns them and they are delivered again (at least
     * once). Their in-flight places are freed when the answer comes.
     */
    private void ack(OwnedShard shard, List<Outcome> done) {
        for (int from = 0; from < done.size(); from += MAX_ACKS_PER_CALL) {
            List<Outcome> part = done.subList(from, Math.min(done.size(), from + MAX_ACKS_PER_CALL));
            List<MessageRef> refs = new ArrayList<>(part.size());
            for (Outcome outcome : part) {
                refs.add(outcome.message().ref());
            }
            pendingAcks.incrementAndGet();
            CompletableFuture<Integer> ack;
            try {
                ack = store.ackAsync(shard.shard, shard.epoch, refs);
            } catch (RuntimeException e) {
                ack = CompletableFuture.failedFuture(e);
            }
            ack.whenComplete((deleted, error) -> {
                if (error != null) {
                    Throwable cause = error instanceof CompletionException && error.getCause() != null
                            ? error.getCause() : error;
                    if (cause instanceof StoreFencedException) {
                        metrics.acksFenced.mark(refs.size());
                        LOG.warn("{}; its new owner delivers the {} messages acked here again", cause.getMessage(),
                                refs.size());
                    } else {
                        LOG.warn("Could not acknowledge {} delivered messages in shard {}: {}", refs.size(),
                                shard.shard, cause.getMessage());
                    }
                }
                pendingAcks.decrementAndGet();
                finish(shard, refs.size());
            });
        }
    }

    private void finish(OwnedShard shard, int count) {
        inFlight.addAndGet(-count);
        shard.outstanding.addAndGet(-count);
        signal();
    }

    /** Sleeps {@code waitNanos}, or less: until signalled, and at most until the next look at leases and clocks. */
    private void awaitUntil(long waitNanos) {
        // A due time is an exact millisecond: sleep to it, not to a tick.
        long maxWaitNanos = TimeUnit.MILLISECONDS.toNanos(Math.min(CLOCK_CHECK_MILLIS, settings.leaseMillis() / 2));
        long deadline = System.nanoTime() + Math.min(waitNanos, maxWaitNanos);
        lock.lock();
        try {
            while (running && !signalled) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                changed.awaitNanos(left);
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

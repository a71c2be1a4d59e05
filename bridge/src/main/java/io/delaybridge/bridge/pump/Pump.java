package io.delaybridge.bridge.pump;

import io.delaybridge.bridge.delivery.Delivery;
import io.delaybridge.bridge.errors.Failures;
import io.delaybridge.bridge.probe.Checkpoint;
import io.delaybridge.bridge.probe.PipelineProbe;
import io.delaybridge.bridge.release.DueReleaser;
import io.delaybridge.bridge.store.ClaimBatch;
import io.delaybridge.bridge.store.ClaimedMessage;
import io.delaybridge.bridge.store.DelayStore;
import io.delaybridge.bridge.store.StoreException;
import io.delaybridge.bridge.store.StoreFencedException;
import io.delaybridge.bridge.time.RedisClock;
import io.delaybridge.bridge.time.Time;
import io.dropwizard.lifecycle.Managed;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
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
 * ({@link RedisClock#reachesAt}) reaches their due time. The claim's round trip is then not part of the lateness, and
 * nothing is sent early whatever this host's clock says.
 *
 * <p>Round trips to Redis overlap instead of adding up: the claims of every due shard are issued together (pipelined
 * on one connection, so one Redis event-loop cycle and one fsync serve them all), and acks are sent without waiting
 * for their answers; a message's in-flight place is freed when its ack is answered.
 *
 * <p>The parts: {@link ClaimRounds} times the claims and shares the in-flight places ({@link InFlightPlaces}) among
 * shards; {@link MessageSender} holds claimed messages until their due time and sends them
 * (a capped target's through its {@link Throttle});
 * {@link OutcomeHandler} acks (in batches), retries and deadletters; {@link RedisClock} (shared with the
 * intake and the release threads) and {@link Wakeups} tell the pump thread when to wake; {@link ShardOwnership} holds
 * the shards and {@link ShardOpening} makes an assigned one ready for claims. {@link PumpAssembly} builds them and
 * wires them to each other; this class runs the loop.
 */
public final class Pump implements Managed {

    private static final Logger LOG = LoggerFactory.getLogger(Pump.class);
    private static final long STORE_RETRY_MILLIS = 250;

    private final DelayStore store;
    private final PumpSettings settings;
    private final PumpMetrics metrics;
    private final Time time;
    /** Redis' clock, as every part knows it: when to wake, and what is due. */
    private final RedisClock redisClock;
    /** Sends for both paths; with exactly once, each shard opened (its other writers fenced) before claiming. */
    private final Delivery delivery;
    /** Told of the checkpoints it reaches: {@link PipelineProbe#NONE} in the service. */
    private final PipelineProbe probe;
    /** The parts this loop drives, built and wired to each other. */
    private final PumpAssembly parts;

    private volatile boolean running;
    private Thread thread;

    public Pump(
            DelayStore store,
            PumpSends sends,
            PumpSettings settings,
            PumpMetrics metrics,
            RedisClock redisClock,
            PipelineProbe probe) {
        this.store = store;
        this.settings = settings;
        this.metrics = metrics;
        this.time = redisClock.time();
        this.redisClock = redisClock;
        this.delivery = sends.delivery();
        this.probe = probe;
        this.parts = PumpAssembly.wire(store, sends, settings, metrics, redisClock, probe, STORE_RETRY_MILLIS);
        store.onWake(this::wake);
    }

    @Override
    public void start() {
        running = true;
        parts.sender().start();
        thread = new Thread(this::run, "delay-pump");
        thread.start();
    }

    @Override
    public void stop() throws InterruptedException {
        running = false;
        parts.wakeups().signal();
        if (thread != null) {
            thread.join(TimeUnit.SECONDS.toMillis(30));
        }
        parts.sender().flush();
        if (thread == null || !thread.isAlive()) {
            // the pump thread's own state (unacked outcomes): only once it has ended; if it hangs, leases return them
            parts.outcomes().process();
            parts.outcomes().flushAcks(true);
        }
        awaitAcks(TimeUnit.SECONDS.toNanos(10));
    }

    /** Waits until every ack sent has been answered, or the time is up (their leases then return the messages). */
    private void awaitAcks(long timeoutNanos) {
        if (!parts.wakeups().awaitUntilTrue(() -> parts.places().pendingAcks() == 0, timeoutNanos)) {
            LOG.warn(
                    "{} acks were still unanswered at stop; their messages return when their leases expire",
                    parts.places().pendingAcks());
        }
    }

    /**
     * Takes over shards the consumer group assigned to this instance. Called on the intake's thread; the fencing
     * epochs are taken on the pump's thread, so this never blocks on or fails with Redis.
     */
    public void assign(Collection<Integer> shards) {
        parts.owned().assign(shards);
    }

    /**
     * Lets go of shards the consumer group took away: stops claiming in them and waits, up to the configured drain
     * time, until their in-flight messages are acknowledged, so a graceful rebalance delivers nothing twice. Called on
     * the intake's thread, before the partitions move to another instance.
     */
    public void revoke(Collection<Integer> shards) {
        parts.owned().revoke(shards, TimeUnit.MILLISECONDS.toNanos(settings.revokeDrainMillis()), () -> running);
        for (int shard : shards) {
            delivery.closeShard(shard, true); // its next owner opens it again (and fences this instance's producer)
        }
    }

    /** The operator's pauses of this pump: all shards, or single ones. */
    public PumpPauses pauses() {
        return parts.pauses();
    }

    /** The shards this instance pumps now. */
    public List<Integer> ownedShards() {
        return parts.owned().numbers();
    }

    /** Shard -> fencing epoch of the shards this instance pumps now, once their epoch is taken. */
    public Map<Integer, Long> ownedEpochs() {
        return parts.owned().epochs();
    }

    /** The epoch the store fences this instance's intake writes into {@code shard} by; -1: unfenced. */
    public long writeFence(int shard) {
        return parts.owned().writeFence(shard);
    }

    public int inFlight() {
        return parts.places().count();
    }

    /** Called by the store when a shard received a message due earlier than all it held. */
    void wake(int shard, long dueAt) {
        parts.owned().woken(shard, dueAt);
    }

    /**
     * Reads Redis' clock when no reading is fresh ({@link RedisClock#TRUSTED_NANOS}). Claims and the intake's writes
     * read it as a side effect; this covers the idle pump, whose next wake-up is timed by the estimate.
     */
    private void checkClock() {
        try {
            redisClock.refreshIfStale();
        } catch (StoreException e) {
            // Redis is out of reach: nothing can be claimed either; the store calls report it
        }
    }

    private void run() {
        while (running) {
            long wakeAt;
            try {
                parts.outcomes().process();
                wakeAt = Math.min(pumpOwnedShards(), parts.outcomes().ackFlushAt());
            } catch (RuntimeException e) {
                parts.warnings()
                        .warn("Pump cycle failed, retrying every {} ms: {}", STORE_RETRY_MILLIS, Failures.describe(e));
                wakeAt = redisClock.now() + STORE_RETRY_MILLIS;
            }
            awaitUntil(redisClock.nanosUntil(wakeAt));
        }
    }

    /**
     * Claims and sends what is due; returns the Redis time at which the pump next has work. With every in-flight
     * place taken, due messages are no reason to wake: the next outcome is, and it signals.
     */
    private long pumpOwnedShards() {
        long next = Long.MAX_VALUE;
        if (!parts.owned().isEmpty()) {
            checkClock();
        }
        List<OwnedShard> live = new ArrayList<>();
        List<OwnedShard> held = parts.owned().live();
        List<OwnedShard> ready = parts.opening().ready(held);
        if (ready.size() < held.size()) {
            next = Math.min(next, redisClock.now() + STORE_RETRY_MILLIS);
        }
        for (OwnedShard shard : ready) {
            try {
                parts.owned().reclaimIfDue(shard);
                if (!parts.owned().returnLostClaims(shard)) {
                    continue; // its sends finish first; each one finished wakes the pump
                }
            } catch (StoreFencedException e) {
                parts.opening().letGo(shard, e);
                continue;
            }
            live.add(shard);
        }
        boolean paused = parts.pauses().paused();
        if (!paused) {
            claimDue(live);
        }
        for (OwnedShard shard : live) {
            if (shard.revoked) {
                continue;
            }
            if (!paused && !parts.places().full()) {
                next = Math.min(next, parts.rounds().roundTime(shard));
            }
            long reclaimInMillis = TimeUnit.NANOSECONDS.toMillis(shard.reclaimAtNanos - time.nanoseconds());
            next = Math.min(next, redisClock.now() + reclaimInMillis);
        }
        return next;
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
            parts.outcomes().process();
            int room = parts.places().room();
            if (room <= 0) {
                return;
            }
            long now = redisClock.now();
            if (firstOfRound) {
                if (!parts.rounds().startRound(shards, now)) {
                    return; // woken early (an outcome, a later message): the round comes at its time
                }
                firstOfRound = false;
            }
            List<OwnedShard> due = parts.rounds().dueShards(shards, now, room);
            if (due.isEmpty()) {
                return;
            }
            int[] want = parts.rounds().perShard(due, room);
            long requested = time.nanoseconds();
            List<CompletableFuture<ClaimBatch>> claims = new ArrayList<>(due.size());
            for (int i = 0; i < due.size(); i++) {
                OwnedShard shard = due.get(i);
                shard.wokenAt.set(Long.MAX_VALUE);
                // reserved before the claim: revoke() waits for it, so a claim under way is sent and acked before
                // the shard moves (a graceful rebalance delivers nothing twice)
                parts.places().reserve(shard, want[i]);
                CompletableFuture<ClaimBatch> claim;
                try {
                    claim = parts.pauses().isPaused(shard.shard)
                            // nothing, and no next due time: the shard waits for the wake-up of its resume
                            ? CompletableFuture.completedFuture(new ClaimBatch(List.of(), -1, store.now()))
                            : store.claimAsync(
                                    shard.shard,
                                    shard.epoch,
                                    want[i],
                                    settings.leaseMillis(),
                                    settings.lookAheadMillis());
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
                    batch = StoreCalls.await(claims.get(i), settings.leaseMillis(), "claim on shard " + shard.shard);
                } catch (StoreFencedException e) {
                    parts.places().unreserve(shard, want[i]);
                    parts.opening().letGo(shard, e);
                    continue;
                } catch (RuntimeException e) {
                    parts.places().unreserve(shard, want[i]);
                    shard.nextDueAt = Long.MIN_VALUE; // its wake-up was taken: claim again in the next cycle
                    shard.claimAnswerLost = true; // it may have run: what it took returns before the next claim
                    failure = failure == null ? e : failure;
                    continue;
                }
                redisClock.observe(batch.redisNow(), requested, time.nanoseconds());
                handOver(shard, batch, want[i]);
                anyFull |= filled(batch, want[i]) && !shard.revoked; // the shard may hold more that is due
            }
            if (failure != null) {
                throw failure;
            }
            if (!anyFull) {
                return;
            }
        }
    }

    /** Whether a claim that asked for {@code want} messages got them all. */
    private static boolean filled(ClaimBatch batch, int want) {
        return batch.messages().size() >= want;
    }

    /**
     * Hands a claimed batch to the release thread, which sends each message at its due time, turning the claim's
     * reservation of {@code want} places into its messages, and notes when the shard is next due.
     */
    private void handOver(OwnedShard shard, ClaimBatch batch, int want) {
        List<ClaimedMessage> messages = batch.messages();
        shard.nextDueAt = filled(batch, want) ? Long.MIN_VALUE : (batch.hasNext() ? batch.nextDueAt() : Long.MAX_VALUE);
        if (messages.size() < want) {
            parts.places().unreserve(shard, want - messages.size());
        }
        delivery.claimed(
                shard.shard, () -> messages.stream().map(parts.sender()::key).iterator(), messages.size() < want);
        if (messages.size() < want) {
            parts.storedCheck().shortClaim(shard.shard);
        }
        if (!messages.isEmpty()) {
            metrics.claimBatch.update(messages.size());
            parts.places().claimed(messages.size());
            probe.reached(Checkpoint.CLAIMED_BEFORE_SEND);
            parts.sender().hold(shard, messages);
        }
    }

    /** Sleeps {@code waitNanos}, or less: until signalled, and at most until the next look at leases and clocks. */
    private void awaitUntil(long waitNanos) {
        // A due time is an exact millisecond: sleep to it, not to a tick.
        long maxWaitNanos =
                Math.min(RedisClock.TRUSTED_NANOS, TimeUnit.MILLISECONDS.toNanos(settings.leaseMillis() / 2));
        if (!parts.wakeups().sleep(Math.min(waitNanos, maxWaitNanos), () -> running)) {
            running = false;
        }
    }
}

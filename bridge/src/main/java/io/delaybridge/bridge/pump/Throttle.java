package io.delaybridge.bridge.pump;

import io.delaybridge.bridge.delivery.Bucket;
import io.delaybridge.bridge.delivery.TargetRates.Target;
import io.delaybridge.bridge.store.ClaimedMessage;
import io.delaybridge.bridge.store.DelayStore;
import io.delaybridge.bridge.time.Time;
import io.delaybridge.schemas.Envelope;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holds deliveries to capped targets to their rate ({@code pump.rateLimits}), oldest due first, on a thread of its
 * own; uncapped targets never come here.
 *
 * <p>A due message of a capped target goes at once if its target has a token and nothing of it waits. Otherwise it
 * waits here, in its target's queue (in due order), if its token comes within {@link #maxWaitNanos} (a quarter of the
 * lease, at most two seconds) and the queue has room; the thread sends it when its token comes. What does not fit is
 * parked: returned to the due set, no attempt counted, claimable again only shortly before the token the target will
 * have for it ({@link DelayStore#parkAsync}; the claim then returns it with its original due time). Each parked message
 * of a target takes the next of the target's token times, one {@code 1/cap} after the other, so the backlog comes back
 * from Redis at the cap's pace, in the order it was parked; while it does, a newly due message of the target is
 * parked behind it. So:
 * <ul>
 *   <li>a capped backlog holds up nothing else: it is claimed about once per message (again when its token comes),
 *       not at every claim of its shards, and the other targets of those shards are claimed as if it were not
 *       there;</li>
 *   <li>a held message never outlives its lease (it waits at most a quarter of it; one still here after half a lease,
 *       because this thread stalled, is parked instead of sent);</li>
 *   <li>a throttled backlog waits in Redis, not in the heap: what waits here is bounded per target by the wait and by
 *       a quarter of {@code maxInFlight}, and in all by half of it, so capped targets never take every in-flight
 *       place from the others;</li>
 *   <li>oldest first: within a shard strictly ({@link ParkedLines}: a message never overtakes an older one of its
 *       target and shard that is parked), across shards by when each was claimed.</li>
 * </ul>
 * The delivered {@code delay-due-at} is the original due time; lateness is measured from it.
 *
 * <p>A target's {@link Bucket} decides whom its cap holds for: a {@code SharedBucket} takes tokens from Redis, shared
 * by every instance. When Redis does not answer its request, it has no tokens and asks again every 100 ms: the
 * target's messages wait here and are parked as above (or, with Redis away, their leases return them), so a cap is
 * never exceeded for want of Redis. A message held for more than half a lease is parked even while no token comes
 * ({@link #STALE_SCAN_NANOS}), so none is left in memory to be sent after its lease.
 */
final class Throttle {

    private static final Logger LOG = LoggerFactory.getLogger(Throttle.class);
    private static final long MAX_WAIT_MILLIS = 2_000;
    /**
     * A returning parked message that an older one of its line (parked again) must go before is parked again at least
     * this long: it comes back right after the older one, never in a busy loop.
     */
    private static final long REPARK_MILLIS = 100;
    /** How often waiting messages are looked through for ones held past half a lease. */
    static final long STALE_SCAN_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    /** Sends a message that waited for its token; reports failures as outcomes, never throws. */
    interface Sender {
        void send(OwnedShard shard, ClaimedMessage message, Envelope envelope, Target target);
    }

    /** A message waiting here for its target's token, since {@code since} ({@link Time#nanoseconds}). */
    record Held(
            OwnedShard shard, ClaimedMessage message, Envelope envelope, Target target, long since, long sequence) {}

    /** A message going back to the due set, claimable again from {@code untilMillis} (Redis time). */
    record Back(Held held, long untilMillis) {}

    private final HandBacks handBacks;
    private final ParkedLines lines = new ParkedLines();
    private final LongSupplier redisNow;
    private final Time time;
    private final long maxWaitNanos;
    private final long leaseGuardNanos;
    private final long leaseNanos;
    private final int maxPerTarget;
    private final int maxInAll;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    /**
     * Per capped target with messages waiting, in the order they came: in a shard that is due order, and across shards
     * the order of the target's token times (a queue in due order would let messages coming back from Redis, older,
     * keep overtaking one that waits here).
     */
    private final Map<Target, ArrayDeque<Held>> waiting = new LinkedHashMap<>();
    /** Per capped target that parked messages: the next token time not yet given to one, Redis ms. */
    private final Map<Target, Double> nextSlot = new HashMap<>();

    private final List<Back> toHandBack = new ArrayList<>();
    private int waitingInAll;
    private long sequence;
    /** The thread is sending what it took from the queues: a message that goes at once would overtake them. */
    private boolean sending;

    private long nextStaleScan;

    private boolean stopping;
    private Sender sender;
    private Thread thread;

    Throttle(DelayStore store, InFlightPlaces places, PumpSettings settings, LongSupplier redisNow, Time time) {
        this.handBacks = new HandBacks(store, places);
        this.redisNow = redisNow;
        this.time = time;
        this.maxWaitNanos = TimeUnit.MILLISECONDS.toNanos(Math.min(MAX_WAIT_MILLIS, settings.leaseMillis() / 4));
        this.leaseGuardNanos = TimeUnit.MILLISECONDS.toNanos(settings.leaseMillis() / 2);
        this.leaseNanos = TimeUnit.MILLISECONDS.toNanos(settings.leaseMillis());
        this.maxPerTarget = Math.max(1, settings.maxInFlight() / 4);
        this.maxInAll = Math.max(1, settings.maxInFlight() / 2);
    }

    void start(Sender sender) {
        this.sender = sender;
        thread = new Thread(this::run, "delay-throttle");
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * Decides on a due message of a capped target, on the release thread: true to send it now (it took a token);
     * false if it waits here or went back to the due set.
     */
    boolean admit(OwnedShard shard, ClaimedMessage message, Envelope envelope, Target target) {
        Bucket bucket = target.bucket();
        long now = time.nanoseconds();
        lock.lock();
        try {
            ArrayDeque<Held> queue = waiting.get(target);
            int queued = queue == null ? 0 : queue.size();
            Held held = new Held(shard, message, envelope, target, now, sequence++);
            if (stopping) {
                handBack(held, message.dueAt());
                return false;
            }
            long redisMillis = redisNow.getAsLong();
            boolean returning = lines.isParked(shard, target.topic(), message);
            long behind = lines.heldUntil(shard, target.topic(), message, now);
            if (behind != ParkedLines.GOES) {
                // an older message of its target and shard waits in Redis: it goes after that one
                long until = returning
                        ? Math.max(behind + 1, redisMillis + REPARK_MILLIS)
                        : slot(target, bucket, now, redisMillis, queued);
                park(held, until, now, redisMillis);
                return false;
            }
            if (!returning && slotsAhead(target, redisMillis)) {
                // the target's parked backlog has the coming tokens: a newly due message queues behind it
                park(held, slot(target, bucket, now, redisMillis, queued), now, redisMillis);
                return false;
            }
            if (queued == 0 && !sending && bucket.tryTake(now)) {
                return true;
            }
            boolean fits = queued < maxPerTarget
                    && waitingInAll < maxInAll
                    && bucket.nanosUntil(now, queued + 1) <= maxWaitNanos;
            if (fits) {
                waiting.computeIfAbsent(target, t -> new ArrayDeque<>()).add(held);
                waitingInAll++;
                target.waiting.incrementAndGet();
                target.heldBack();
                changed.signal();
            } else {
                park(held, slot(target, bucket, now, redisMillis, queued), now, redisMillis);
            }
            return false;
        } finally {
            lock.unlock();
        }
    }

    /**
     * The next of the target's token times no message has yet (Redis ms), taken: after every message waiting here
     * and every one parked before. Claimable again half the wait before it, so it is back here when its token comes.
     */
    private long slot(Target target, Bucket bucket, long now, long redisMillis, int queued) {
        double earliest = redisMillis + bucket.nanosUntil(now, queued + 1) / 1e6;
        double slot = Math.max(nextSlot.getOrDefault(target, earliest), earliest);
        nextSlot.put(target, slot + 1000.0 / bucket.perSecond());
        return (long) slot - TimeUnit.NANOSECONDS.toMillis(maxWaitNanos) / 2;
    }

    /** Whether the target's parked messages have token times beyond what its queue here waits for. */
    private boolean slotsAhead(Target target, long redisMillis) {
        Double next = nextSlot.get(target);
        if (next == null) {
            return false;
        }
        if (next <= redisMillis + TimeUnit.NANOSECONDS.toMillis(maxWaitNanos) / 2) {
            nextSlot.remove(target);
            return false;
        }
        return true;
    }

    /** Parks {@code held} until {@code untilMillis} (not before its due time), and remembers it in its line. */
    private void park(Held held, long untilMillis, long now, long redisMillis) {
        long until = Math.max(untilMillis, held.message.dueAt());
        long expires = now + TimeUnit.MILLISECONDS.toNanos(Math.max(0, until - redisMillis)) + leaseNanos;
        lines.parked(held.shard, held.target.topic(), held.message, until, expires);
        handBack(held, until);
    }

    private void handBack(Held held, long untilMillis) {
        toHandBack.add(new Back(held, untilMillis));
        changed.signal();
    }

    /** Hands back everything that waits, and ends the thread once the hand-backs are answered (or 5 s passed). */
    void stop() throws InterruptedException {
        if (thread == null) {
            return;
        }
        lock.lock();
        try {
            stopping = true;
            changed.signal();
        } finally {
            lock.unlock();
        }
        thread.join(TimeUnit.SECONDS.toMillis(5));
        handBacks.await(TimeUnit.SECONDS.toMillis(5));
    }

    private void run() {
        List<Held> send = new ArrayList<>();
        List<Back> back = new ArrayList<>();
        while (true) {
            boolean last;
            lock.lock();
            try {
                long now = time.nanoseconds();
                long wait = TimeUnit.SECONDS.toNanos(1);
                boolean scan = now - nextStaleScan >= 0;
                if (scan) {
                    nextStaleScan = now + STALE_SCAN_NANOS;
                    lines.forgetExpired(now);
                }
                for (Iterator<Map.Entry<Target, ArrayDeque<Held>>> it =
                                waiting.entrySet().iterator();
                        it.hasNext(); ) {
                    Map.Entry<Target, ArrayDeque<Held>> entry = it.next();
                    ArrayDeque<Held> queue = entry.getValue();
                    Bucket bucket = entry.getKey().bucket();
                    drain(entry.getKey(), queue, now, send);
                    if (queue.isEmpty()) {
                        it.remove();
                    } else {
                        wait = Math.min(wait, Math.max(1, Math.min(STALE_SCAN_NANOS, bucket.nanosUntil(now, 1))));
                    }
                }
                back.addAll(toHandBack);
                toHandBack.clear();
                last = stopping;
                sending = !send.isEmpty();
                if (send.isEmpty() && back.isEmpty() && !last) {
                    changed.awaitNanos(wait);
                    continue;
                }
            } catch (InterruptedException e) {
                continue; // the flag is cleared; stop() ends the loop, not an interrupt
            } finally {
                lock.unlock();
            }
            for (Held held : send) {
                try {
                    sender.send(held.shard, held.message, held.envelope, held.target);
                } catch (RuntimeException e) {
                    LOG.error(
                            "Sending message {} failed; its lease returns it",
                            held.message.ref().id(),
                            e);
                }
            }
            if (!send.isEmpty()) {
                lock.lock();
                try {
                    sending = false;
                } finally {
                    lock.unlock();
                }
                send.clear();
            }
            handBacks.send(back);
            back.clear();
            if (last) {
                return;
            }
        }
    }

    /**
     * Takes from the target's queue what has a token, to {@code send}, after parking what waited past half a lease
     * (this thread stalled, or a shared cap got no tokens: Redis away); at stop, hands back everything. The caller
     * holds the lock.
     */
    private void drain(Target target, ArrayDeque<Held> queue, long now, List<Held> send) {
        if (stopping) {
            for (Held held : queue) {
                handBack(held, held.message.dueAt());
            }
            waitingInAll -= queue.size();
            target.waiting.addAndGet(-queue.size());
            queue.clear();
            return;
        }
        parkStale(target, queue, now);
        Bucket bucket = target.bucket();
        while (!queue.isEmpty() && bucket.tryTake(now)) {
            send.add(queue.pollFirst());
            waitingInAll--;
            target.waiting.decrementAndGet();
        }
    }

    /**
     * Parks the messages that waited past half a lease (the queue's head: it is in arrival order), and with them every
     * younger one of their shard still waiting, so that none goes before them.
     */
    private void parkStale(Target target, ArrayDeque<Held> queue, long now) {
        if (queue.isEmpty() || now - queue.peekFirst().since <= leaseGuardNanos) {
            return;
        }
        long redisMillis = redisNow.getAsLong();
        List<OwnedShard> stale = new ArrayList<>();
        for (Iterator<Held> it = queue.iterator(); it.hasNext(); ) {
            Held held = it.next();
            if (now - held.since > leaseGuardNanos || stale.contains(held.shard)) {
                if (!stale.contains(held.shard)) {
                    stale.add(held.shard);
                }
                it.remove();
                waitingInAll--;
                target.waiting.decrementAndGet();
                park(held, slot(target, target.bucket(), now, redisMillis, 0), now, redisMillis);
            }
        }
    }
}

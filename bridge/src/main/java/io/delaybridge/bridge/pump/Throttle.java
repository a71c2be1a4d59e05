package io.delaybridge.bridge.pump;

import io.delaybridge.bridge.delivery.Bucket;
import io.delaybridge.bridge.delivery.TargetRates.Target;
import io.delaybridge.bridge.store.ClaimedMessage;
import io.delaybridge.bridge.store.DelayStore;
import io.delaybridge.bridge.time.Time;
import io.delaybridge.schemas.Envelope;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
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
 * lease, at most two seconds) and the queue has room; the thread sends it when its token comes. A message older than
 * the youngest waiting (from another shard) takes that one's place. What does not fit is handed back: returned to
 * the due set at its own due time, no attempt counted ({@link DelayStore#handBackAsync}); the shard it came from is
 * not claimed before the target's queue has drained to half the wait ({@link OwnedShard#claimGate}), and then in small
 * claims ({@link OwnedShard#claimLimit}). So:
 * <ul>
 *   <li>a held message never outlives its lease (it waits at most a quarter of it; one still here after half a lease,
 *       because this thread stalled, is handed back instead of sent);</li>
 *   <li>a throttled backlog waits in Redis, not in the heap: what waits here is bounded per target by the wait and
 *       by a quarter of {@code maxInFlight}, and in all by half of it, so capped targets never take every in-flight
 *       place from the others;</li>
 *   <li>no busy loop: a shard whose head is a throttled backlog is claimed again only when its target has room, and
 *       then only a little; every shard of the target opens at the same time, so their claims meet in one round;</li>
 *   <li>oldest first: within a shard strictly (a message never overtakes an older one of its target and shard that
 *       was handed back), across shards by due time among what was claimed.</li>
 * </ul>
 * The delivered {@code delay-due-at} is the original due time; lateness is measured from it.
 *
 * <p>A target's {@link Bucket} decides whom its cap holds for: a {@code SharedBucket} takes tokens from Redis, shared
 * by every instance. When Redis does not answer its request, it has no tokens and asks again every 100 ms: the
 * target's messages wait here and go back to the due set as above (or, with Redis away, their leases return them), so
 * a cap is never exceeded for want of Redis. A message held for more than half a lease is handed back even while no
 * token comes ({@link #STALE_SCAN_NANOS}), so none is left in memory to be sent after its lease.
 */
final class Throttle {

    private static final Logger LOG = LoggerFactory.getLogger(Throttle.class);
    private static final long MAX_WAIT_MILLIS = 2_000;
    /** A target refuses messages at least this long: its hand-back reaches Redis before the shard is claimed again. */
    private static final long MIN_REFUSAL_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
    /** How often waiting messages are looked through for ones held past half a lease. */
    static final long STALE_SCAN_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    /** Sends a message that waited for its token; reports failures as outcomes, never throws. */
    interface Sender {
        void send(OwnedShard shard, ClaimedMessage message, Envelope envelope, Target target);
    }

    /** A message waiting here for its target's token, since {@code since} ({@link Time#nanoseconds}). */
    record Held(
            OwnedShard shard, ClaimedMessage message, Envelope envelope, Target target, long since, long sequence) {}

    /** The waiting messages' order: due order, then arrival. */
    private static final Comparator<Held> HELD_ORDER = Comparator.<Held, ClaimedMessage>comparing(
                    Held::message, (a, b) -> HandBackOrder.IN_DUE_ORDER.compare(a, b))
            .thenComparingLong(Held::sequence);

    private final HandBacks handBacks;
    private final HandBackOrder order;
    private final LongSupplier redisNow;
    private final Time time;
    private final long maxWaitNanos;
    private final long leaseGuardNanos;
    private final int maxPerTarget;
    private final int maxInAll;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    /** Per capped target with messages waiting, in due order. */
    private final Map<Target, TreeSet<Held>> waiting = new LinkedHashMap<>();
    /** Per target refusing messages: until when ({@link Time#nanoseconds}). */
    private final Map<Target, Long> refusing = new HashMap<>();

    private final List<Held> toHandBack = new ArrayList<>();
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
        this.order = new HandBackOrder(leaseGuardNanos);
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
            TreeSet<Held> queue = waiting.get(target);
            int queued = queue == null ? 0 : queue.size();
            Long refuseUntil = refusing.get(target);
            if (refuseUntil != null && now - refuseUntil >= 0) {
                refusing.remove(target);
                refuseUntil = null;
            }
            if (order.overtakes(shard, target.topic(), message, now)) {
                gate(shard, target, Math.max(MIN_REFUSAL_NANOS, refuseUntil == null ? 0 : refuseUntil - now));
                handBack(new Held(shard, message, envelope, target, now, sequence++), now);
                return false;
            }
            if (queued == 0 && !sending && !stopping && bucket.tryTake(now)) {
                return true;
            }
            Held held = new Held(shard, message, envelope, target, now, sequence++);
            boolean fits = !stopping
                    && queued < maxPerTarget
                    && waitingInAll < maxInAll
                    && bucket.nanosUntil(now, queued + 1) <= maxWaitNanos;
            if (!fits && !stopping && queued > 0 && HELD_ORDER.compare(held, queue.last()) < 0) {
                // older than the youngest waiting (it came from another shard's claim): it takes that one's place
                Held youngest = queue.pollLast();
                waitingInAll--;
                target.waiting.decrementAndGet();
                refuseUntil = refuseUntil(target, bucket, now, queued);
                gate(youngest.shard, target, refuseUntil - now);
                handBack(youngest, now);
                fits = true;
            }
            if (fits) {
                waiting.computeIfAbsent(target, t -> new TreeSet<>(HELD_ORDER)).add(held);
                waitingInAll++;
                target.waiting.incrementAndGet();
                target.heldBack();
            } else {
                refuseUntil = refuseUntil(target, bucket, now, queued);
                gate(shard, target, refuseUntil - now);
                handBack(held, now);
            }
            changed.signal();
            return false;
        } finally {
            lock.unlock();
        }
    }

    /**
     * When the target's shards may be claimed again: when its queue has drained to half the wait (time to claim, none
     * to starve). Kept until then, so every shard handed back meanwhile opens at the same time and their claims meet
     * in one round, where the oldest win.
     */
    private long refuseUntil(Target target, Bucket bucket, long now, int queued) {
        Long until = refusing.get(target);
        if (until == null) {
            until = now
                    + Math.max(
                            bucket.nanosUntil(now, queued + 1) - maxWaitNanos / 2,
                            Math.max(bucket.nanosUntil(now, 1), MIN_REFUSAL_NANOS));
            refusing.put(target, until);
        }
        return until;
    }

    private void handBack(Held held, long now) {
        order.handedBack(held.shard, held.target.topic(), held.message, now);
        toHandBack.add(held);
        changed.signal();
    }

    /** Keeps the shard from being claimed until the target refuses no more, and its next claims small. */
    private void gate(OwnedShard shard, Target target, long forNanos) {
        long until = redisNow.getAsLong() + TimeUnit.NANOSECONDS.toMillis(forNanos) + 1;
        if (until > shard.claimGate) {
            shard.claimGate = until;
        }
        int fit = (int) Math.max(1, target.cap() * maxWaitNanos / 2 / 1e9);
        shard.claimLimit = Math.min(shard.claimLimit, fit);
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
        List<Held> back = new ArrayList<>();
        while (true) {
            boolean last;
            lock.lock();
            try {
                long now = time.nanoseconds();
                long wait = TimeUnit.SECONDS.toNanos(1);
                boolean scan = now - nextStaleScan >= 0;
                if (scan) {
                    nextStaleScan = now + STALE_SCAN_NANOS;
                }
                for (Iterator<Map.Entry<Target, TreeSet<Held>>> it =
                                waiting.entrySet().iterator();
                        it.hasNext(); ) {
                    Map.Entry<Target, TreeSet<Held>> entry = it.next();
                    TreeSet<Held> queue = entry.getValue();
                    Bucket bucket = entry.getKey().bucket();
                    while (!queue.isEmpty() && (stopping || bucket.tryTake(now))) {
                        Held held = queue.pollFirst();
                        (stopping || now - held.since > leaseGuardNanos ? back : send).add(held);
                        waitingInAll--;
                        entry.getKey().waiting.decrementAndGet();
                    }
                    if (scan) {
                        takeStale(entry.getKey(), queue, now, back);
                    }
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

    /** Moves what waited past half a lease to {@code back}: no token came for it (Redis away, for a shared cap). */
    private void takeStale(Target target, TreeSet<Held> queue, long now, List<Held> back) {
        for (Iterator<Held> it = queue.iterator(); it.hasNext(); ) {
            Held held = it.next();
            if (now - held.since > leaseGuardNanos) {
                it.remove();
                back.add(held);
                waitingInAll--;
                target.waiting.decrementAndGet();
            }
        }
    }
}

package io.delaybridge.bridge.pump;

import io.delaybridge.bridge.store.ClaimedMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends claimed messages when they fall due, earliest due first, on its own thread.
 *
 * <p>A claim that looks ahead returns messages due a little later; they wait here until a lower bound of Redis'
 * clock ({@link RedisClockBound}, fed with every reading of Redis' {@code TIME} the pump gets) has reached their due
 * time. Messages already due pass straight through, in due order with the rest. The thread is apart from the pump's,
 * which waits on claim round trips: a message falls due on time while a claim is under way.
 */
final class DueReleaser {

    private static final Logger LOG = LoggerFactory.getLogger(DueReleaser.class);

    /** Sends one message: the pump's {@code release}, which reports its failures as outcomes instead of throwing. */
    interface Sender {
        void send(OwnedShard shard, ClaimedMessage message);
    }

    private record Held(OwnedShard shard, ClaimedMessage message, long sequence) implements Comparable<Held> {
        @Override
        public int compareTo(Held other) {
            int byDue = Long.compare(message.dueAt(), other.message.dueAt());
            return byDue != 0 ? byDue : Long.compare(sequence, other.sequence);
        }
    }

    private final Sender sender;
    private final long maxHoldMillis;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final RedisClockBound redisClock = new RedisClockBound();
    private final PriorityQueue<Held> held = new PriorityQueue<>();
    private long sequence;
    private boolean stopping;
    private Thread thread;

    /** {@code maxHoldMillis}: the look-ahead, how long a message may wait here at most. */
    DueReleaser(Sender sender, long maxHoldMillis) {
        this.sender = sender;
        this.maxHoldMillis = maxHoldMillis;
    }

    void start() {
        thread = new Thread(this::run, "delay-release");
        thread.start();
    }

    /** Records a reading of Redis' clock whose answer arrived at monotonic {@code arrivedNanos}. */
    void observe(long redisMillis, long arrivedNanos) {
        lock.lock();
        try {
            redisClock.observe(redisMillis, arrivedNanos);
            changed.signal();
        } finally {
            lock.unlock();
        }
    }

    /** Takes claimed messages: each is sent once Redis' clock has certainly reached its due time. */
    void hold(OwnedShard shard, List<ClaimedMessage> messages) {
        lock.lock();
        try {
            if (stopping && thread != null && !thread.isAlive()) {
                LOG.warn("{} messages claimed after the release thread stopped are left to their leases",
                        messages.size());
                return;
            }
            for (ClaimedMessage message : messages) {
                held.add(new Held(shard, message, sequence++));
            }
            changed.signal();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Sends what is held when it falls due (at most the look-ahead away), then ends the thread: a graceful stop
     * delivers on time what was claimed instead of leaving it to its lease.
     */
    void stop() throws InterruptedException {
        lock.lock();
        try {
            stopping = true;
            changed.signal();
        } finally {
            lock.unlock();
        }
        if (thread != null) {
            thread.join(maxHoldMillis + TimeUnit.SECONDS.toMillis(5));
            if (thread.isAlive()) {
                LOG.warn("The release thread is still sending at stop (a send blocked on the producer); what it has "
                        + "not sent is left to the leases");
            }
        }
    }

    private void run() {
        List<Held> due = new ArrayList<>();
        long giveUpAt = Long.MAX_VALUE;
        while (true) {
            lock.lock();
            try {
                long now = System.nanoTime();
                if (stopping && giveUpAt == Long.MAX_VALUE) {
                    giveUpAt = now + TimeUnit.MILLISECONDS.toNanos(maxHoldMillis + 1_000);
                }
                Held next;
                while ((next = held.peek()) != null && redisClock.reachesAt(next.message.dueAt()) - now <= 0) {
                    due.add(held.poll());
                }
                if (due.isEmpty()) {
                    if (stopping && (held.isEmpty() || now - giveUpAt >= 0)) {
                        if (!held.isEmpty()) {
                            LOG.warn("{} claimed messages were not due yet at stop; their leases return them",
                                    held.size());
                        }
                        return;
                    }
                    long at = next == null ? Long.MAX_VALUE : redisClock.reachesAt(next.message.dueAt());
                    long wait = at == Long.MAX_VALUE ? TimeUnit.SECONDS.toNanos(1) : at - now;
                    changed.awaitNanos(stopping ? Math.min(wait, giveUpAt - now) : wait);
                    continue;
                }
            } catch (InterruptedException e) {
                // the flag is cleared: a stray interrupt (a client library restoring one) must not strand what is held
                if (stopping) {
                    LOG.warn("Interrupted while stopping; {} claimed messages are left to their leases", held.size());
                    return;
                }
                LOG.warn("Release thread interrupted; going on");
                continue;
            } finally {
                lock.unlock();
            }
            for (Held message : due) {
                try {
                    sender.send(message.shard, message.message);
                } catch (RuntimeException e) {
                    // the sender reports its own failures; this keeps the thread alive if one slips through
                    LOG.error("Sending message {} failed; its lease returns it", message.message.ref().id(), e);
                }
            }
            due.clear();
        }
    }
}

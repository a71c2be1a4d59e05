package io.delaybridge.bridge.release;

import io.delaybridge.bridge.time.RedisClock;
import io.delaybridge.bridge.time.Time;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.ToLongFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends messages when they fall due, earliest due first (equal due times in the order they came), on its own thread.
 * Serves both paths: the pump's claimed messages and the intake's express records.
 *
 * <p>A claim that looks ahead returns messages due a little later, and the express path takes records due within its
 * window; they wait here until a lower bound of Redis' clock ({@link RedisClock#reachesAt}, fed with every reading of
 * Redis' {@code TIME} the bridge gets) has reached their due time, so neither path ever delivers early. Messages
 * already due pass straight through, in due order with the rest. The thread is apart from the caller's, which waits
 * on round trips: a message falls due on time while a claim or a write is under way.
 *
 * @param <T> what is held: a claimed message with its shard, or an express record
 */
public final class DueReleaser<T> {

    private static final Logger LOG = LoggerFactory.getLogger(DueReleaser.class);

    /** Sends one message; reports its failures itself instead of throwing (e.g. as the pump's outcomes). */
    public interface Sender<T> {
        void send(T message);
    }

    private record Held<T>(T message, long dueAt, long sequence) implements Comparable<Held<T>> {
        @Override
        public int compareTo(Held<T> other) {
            int byDue = Long.compare(dueAt, other.dueAt);
            return byDue != 0 ? byDue : Long.compare(sequence, other.sequence);
        }
    }

    private final Sender<T> sender;
    private final ToLongFunction<T> dueAt;
    private final String threadName;
    private final long maxHoldMillis;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final Time time;
    private final RedisClock redisClock;
    private final PriorityQueue<Held<T>> held = new PriorityQueue<>();
    private long sequence;
    private boolean stopping;
    private Thread thread;

    /**
     * @param dueAt         a message's due time, epoch ms on Redis' clock
     * @param maxHoldMillis the look-ahead (or express window): how long a message may wait here at most
     * @param threadName    the name of the release thread
     */
    public DueReleaser(
            Sender<T> sender,
            ToLongFunction<T> dueAt,
            long maxHoldMillis,
            RedisClock redisClock,
            Time time,
            String threadName) {
        this.time = time;
        this.redisClock = redisClock;
        redisClock.onReading(this::readingArrived);
        this.sender = sender;
        this.dueAt = dueAt;
        this.maxHoldMillis = maxHoldMillis;
        this.threadName = threadName;
    }

    public void start() {
        thread = new Thread(this::run, threadName);
        thread.start();
    }

    /** A reading of Redis' clock arrived: the lower bound may have reached what is held. */
    private void readingArrived() {
        lock.lock();
        try {
            changed.signal();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Takes messages: each is sent once Redis' clock has certainly reached its due time. Returns false (and takes
     * none) once the release thread has stopped.
     */
    public boolean hold(List<T> messages) {
        lock.lock();
        try {
            if (stopping && thread != null && !thread.isAlive()) {
                LOG.warn("{} messages held after the {} thread stopped are not sent", messages.size(), threadName);
                return false;
            }
            for (T message : messages) {
                held.add(new Held<>(message, dueAt.applyAsLong(message), sequence++));
            }
            changed.signal();
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Sends what is held when it falls due (at most the look-ahead away), then ends the thread: a graceful stop
     * delivers on time what was claimed instead of leaving it to its lease.
     */
    public void stop() throws InterruptedException {
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
                LOG.warn(
                        "The {} thread is still sending at stop (a send blocked on the producer); what it has "
                                + "not sent is left to the leases, or read again from the intake",
                        threadName);
            }
        }
    }

    private void run() {
        List<Held<T>> due = new ArrayList<>();
        long giveUpAt = Long.MAX_VALUE;
        while (true) {
            lock.lock();
            try {
                long now = time.nanoseconds();
                if (stopping && giveUpAt == Long.MAX_VALUE) {
                    giveUpAt = now + TimeUnit.MILLISECONDS.toNanos(maxHoldMillis + 1_000);
                }
                Held<T> next;
                while ((next = held.peek()) != null && redisClock.reachesAt(next.dueAt) - now <= 0) {
                    due.add(held.poll());
                }
                if (due.isEmpty()) {
                    if (stopping && (held.isEmpty() || now - giveUpAt >= 0)) {
                        if (!held.isEmpty()) {
                            LOG.warn(
                                    "{} held messages were not due yet at stop; their leases return them, or "
                                            + "the intake reads them again",
                                    held.size());
                        }
                        return;
                    }
                    long at = next == null ? Long.MAX_VALUE : redisClock.reachesAt(next.dueAt);
                    long wait = at == Long.MAX_VALUE ? TimeUnit.SECONDS.toNanos(1) : at - now;
                    changed.awaitNanos(stopping ? Math.min(wait, giveUpAt - now) : wait);
                    continue;
                }
            } catch (InterruptedException e) {
                // the flag is cleared: a stray interrupt (a client library restoring one) must not strand what is held
                if (stopping) {
                    LOG.warn("Interrupted while stopping; {} held messages are not sent", held.size());
                    return;
                }
                LOG.warn("Release thread interrupted; going on");
                continue;
            } finally {
                lock.unlock();
            }
            for (Held<T> message : due) {
                try {
                    sender.send(message.message);
                } catch (RuntimeException e) {
                    // the sender reports its own failures; this keeps the thread alive if one slips through
                    LOG.error("Sending {} failed", message.message, e);
                }
            }
            due.clear();
        }
    }
}

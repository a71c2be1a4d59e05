package io.delaybridge.bridge.pump;

import io.delaybridge.bridge.time.Time;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/**
 * Where the pump thread sleeps and what wakes it: a signal (an outcome, an ack answered, a shard assigned or woken)
 * ends a sleep at once; a signal given while the pump is awake ends its next sleep. Holds no connection.
 */
final class Wakeups {

    private final Time time;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private boolean signalled;

    Wakeups(Time time) {
        this.time = time;
    }

    /** Wakes the pump, and whoever waits in {@link #awaitUntilTrue}. */
    void signal() {
        lock.lock();
        try {
            signalled = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Sleeps up to {@code waitNanos}, or until signalled (a signal since the last sleep ends this one at once), or
     * while {@code keepSleeping} no longer holds. Returns false if interrupted.
     */
    boolean sleep(long waitNanos, BooleanSupplier keepSleeping) {
        long deadline = time.nanoseconds() + waitNanos;
        lock.lock();
        try {
            while (keepSleeping.getAsBoolean() && !signalled) {
                long left = deadline - time.nanoseconds();
                if (left <= 0) {
                    break;
                }
                changed.awaitNanos(left);
            }
            signalled = false;
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits, woken by {@link #signal} (and looking again every 50 ms), until {@code done} holds or the time is up;
     * returns whether it holds. Does not consume the pump's signal.
     */
    boolean awaitUntilTrue(BooleanSupplier done, long timeoutNanos) {
        long deadline = time.nanoseconds() + timeoutNanos;
        lock.lock();
        try {
            while (!done.getAsBoolean()) {
                long left = deadline - time.nanoseconds();
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
}

package io.delaybridge.bridge.delivery;

import io.delaybridge.bridge.time.Time;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The commit thread of exactly once ({@code delay-commit}): runs the instance's commit at the pace of {@link
 * CommitPace} (a quick commit is followed one interval after it started, a slow one a whole interval after it ended),
 * until closed. A commit that throws is logged, and the next one comes at its turn.
 */
public final class Committer {

    private static final Logger LOG = LoggerFactory.getLogger(Committer.class);

    private final long intervalNanos;
    private final Time time;
    private volatile boolean running = true;
    private Thread thread;

    /**
     * @param intervalMillis how often a commit starts (at least 1 ms)
     * @param time           paces the commits
     */
    public Committer(long intervalMillis, Time time) {
        this.intervalNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(1, intervalMillis));
        this.time = time;
    }

    /** Starts the thread, which runs {@code commit} at each turn. */
    synchronized void start(Runnable commit) {
        thread = new Thread(() -> loop(commit), "delay-commit");
        thread.setDaemon(true);
        thread.start();
    }

    private void loop(Runnable commit) {
        CommitPace pace = new CommitPace(intervalNanos, time.nanoseconds());
        while (running) {
            long wait = pace.waitNanos(time.nanoseconds());
            if (wait > 0) {
                time.sleep(TimeUnit.NANOSECONDS.toMillis(wait + TimeUnit.MILLISECONDS.toNanos(1) - 1));
                Thread.interrupted(); // close() wakes the thread: the loop's condition ends it
                continue;
            }
            pace.started(time.nanoseconds());
            try {
                commit.run();
            } catch (RuntimeException e) {
                LOG.error("Committing the instance's transaction failed", e);
            } finally {
                pace.ended(time.nanoseconds());
            }
        }
    }

    /** Ends the thread, waiting up to 10 s for a commit under way. */
    synchronized void close() throws InterruptedException {
        running = false;
        if (thread != null) {
            thread.interrupt();
            thread.join(TimeUnit.SECONDS.toMillis(10));
        }
    }
}

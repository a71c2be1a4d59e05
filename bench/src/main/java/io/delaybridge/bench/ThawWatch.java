package io.delaybridge.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * A count that the thaw raises (records stored hot, or the bridge's {@code delay.far.thawed} meter), sampled every
 * {@value #SAMPLE_MILLIS} ms on a thread of its own with the wall-clock time of each reading: when the thaw began and
 * ended, how many it moved in a span of time, and its rate between 10 % and 90 % of its records.
 */
final class ThawWatch implements AutoCloseable {

    static final long SAMPLE_MILLIS = 250;

    private final LongSupplier count;
    private final Thread thread;
    /** {epoch ms, count} readings in time order; guarded by itself. */
    private final List<long[]> samples = new ArrayList<>();

    private volatile boolean running = true;

    ThawWatch(String name, LongSupplier count) {
        this.count = count;
        thread = new Thread(this::sample, "bench-thaw-watch-" + name);
        thread.setDaemon(true);
        thread.start();
    }

    private void sample() {
        while (running) {
            long value = count.getAsLong();
            synchronized (samples) {
                samples.add(new long[] {System.currentTimeMillis(), value});
            }
            try {
                Thread.sleep(SAMPLE_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** The latest reading, or -1 before the first. */
    long latest() {
        synchronized (samples) {
            return samples.isEmpty() ? -1 : samples.get(samples.size() - 1)[1];
        }
    }

    /** Waits until the count reaches {@code target} or stays still for {@code idleSeconds}; returns the last reading. */
    long awaitCount(long target, int idleSeconds) throws InterruptedException {
        long last = -1;
        long lastChange = System.currentTimeMillis();
        long lastLog = System.currentTimeMillis();
        while (true) {
            long now = latest();
            if (now >= target) {
                return now;
            }
            if (now != last) {
                last = now;
                lastChange = System.currentTimeMillis();
            } else if (System.currentTimeMillis() - lastChange > idleSeconds * 1000L) {
                BenchRun.log("  thaw: gave up at %,d of %,d, nothing for %d s", now, target, idleSeconds);
                return now;
            }
            if (System.currentTimeMillis() - lastLog > 10_000) {
                BenchRun.log("  thaw: %,d of %,d", now, target);
                lastLog = System.currentTimeMillis();
            }
            Thread.sleep(SAMPLE_MILLIS);
        }
    }

    /** The time (epoch ms) of the first reading at or above {@code value}, or -1 if none reached it. */
    long reached(long value) {
        synchronized (samples) {
            for (long[] s : samples) {
                if (s[1] >= value) {
                    return s[0];
                }
            }
        }
        return -1;
    }

    /** The last reading at or before {@code epochMillis} (the first reading if none was that early). */
    long at(long epochMillis) {
        synchronized (samples) {
            long value = samples.isEmpty() ? -1 : samples.get(0)[1];
            for (long[] s : samples) {
                if (s[0] > epochMillis) {
                    break;
                }
                value = s[1];
            }
            return value;
        }
    }

    /**
     * The moment the count first rose above its first reading (the thaw's first records, to {@value #SAMPLE_MILLIS}
     * ms), or -1 if it never did.
     */
    long firstRise() {
        synchronized (samples) {
            if (samples.isEmpty()) {
                return -1;
            }
            long base = samples.get(0)[1];
            for (long[] s : samples) {
                if (s[1] > base) {
                    return s[0];
                }
            }
            return -1;
        }
    }

    /**
     * Records a second between the readings that first reached {@code base} + 10 % and + 90 % of {@code total}: the
     * thaw's steady rate, without its start and tail; 0 if it did not get that far.
     */
    double steadyRate(long base, long total) {
        long low = base + total / 10;
        long high = base + total * 9 / 10;
        long from = reached(low);
        long to = reached(high);
        if (from < 0 || to <= from) {
            return 0;
        }
        return (at(to) - at(from)) * 1000.0 / (to - from);
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        thread.interrupt();
        thread.join(2_000);
    }
}

package io.delaybridge.bench;

import java.util.BitSet;

/**
 * What the collector saw for one phase of a scenario: lateness as a histogram of whole milliseconds, early records,
 * duplicates, and deliveries per 10 ms of broker time (for the steady-state rate).
 *
 * <p>Fixed-size arrays, so millions of records cost no more memory than thousands.
 */
final class Stats {

    private static final int HISTOGRAM_MS = 600_000;
    private static final int BUCKET_MS = 10;
    private static final int BUCKETS = 360_000; // one hour of 10 ms buckets

    final String name;
    final long expected;
    private final long seqBase;
    private final long[] histogram = new long[HISTOGRAM_MS + 1];
    private final long[] buckets = new long[BUCKETS];
    private final BitSet seen = new BitSet();
    private long bucketBase = Long.MIN_VALUE;
    long count;
    long early;
    long duplicates;
    long maxLateness = Long.MIN_VALUE;
    long minEarlyBy;
    long firstDelivered = Long.MAX_VALUE;
    long lastDelivered = Long.MIN_VALUE;
    /**
     * Lateness by the moment the collector read the record, kept only where asked ({@link #readingToo}): what a
     * {@code read_committed} reader waits, a transaction's commit included (the broker's timestamp is the append's).
     */
    private long[] readHistogram;

    private long readCount;
    /** Delivery time by record, kept only where intake order is checked (the burst). */
    private long[] times;
    /** The records due from {@link #windowFrom}, counted again apart (a run's first seconds left out), or null. */
    private Stats window;

    private long windowFrom;

    Stats(String name, long seqBase, long expected) {
        this.name = name;
        this.seqBase = seqBase;
        this.expected = expected;
    }

    /** The sequence number of this phase's first record. */
    long seqBase() {
        return seqBase;
    }

    synchronized void record(long seq, long dueAt, long deliveredAt) {
        record(seq, dueAt, deliveredAt, Long.MIN_VALUE);
    }

    /** {@code readAt}: when the collector read it ({@link Long#MIN_VALUE}: not known). */
    synchronized void record(long seq, long dueAt, long deliveredAt, long readAt) {
        int index = (int) (seq - seqBase);
        if (index >= 0) {
            if (seen.get(index)) {
                duplicates++;
                return;
            }
            seen.set(index);
        }
        count++;
        if (window != null && dueAt >= windowFrom) {
            window.record(seq, dueAt, deliveredAt, readAt);
        }
        recordRead(dueAt, readAt);
        if (times != null && index >= 0 && index < times.length) {
            times[index] = deliveredAt;
        }
        long lateness = deliveredAt - dueAt;
        if (lateness < 0) {
            early++;
            minEarlyBy = Math.min(minEarlyBy, lateness);
        }
        maxLateness = Math.max(maxLateness, lateness);
        histogram[(int) Math.max(0, Math.min(HISTOGRAM_MS, lateness))]++;
        firstDelivered = Math.min(firstDelivered, deliveredAt);
        lastDelivered = Math.max(lastDelivered, deliveredAt);
        if (bucketBase == Long.MIN_VALUE) {
            bucketBase = deliveredAt - 60_000; // room for records stamped a little before the first one seen
        }
        long bucket = (deliveredAt - bucketBase) / BUCKET_MS;
        if (bucket >= 0 && bucket < BUCKETS) {
            buckets[(int) bucket]++;
        }
    }

    /**
     * Counts the records due from {@code dueAt} on apart as well, {@code expected} of them: the figures of a run
     * without its first seconds (a one-shot run leaves out its warm-up the same way).
     */
    synchronized Stats windowFrom(long dueAt, long expected) {
        window = new Stats(name + " window", seqBase, expected);
        windowFrom = dueAt;
        return window;
    }

    private void recordRead(long dueAt, long readAt) {
        if (readHistogram != null && readAt != Long.MIN_VALUE) {
            readHistogram[(int) Math.max(0, Math.min(HISTOGRAM_MS, readAt - dueAt))]++;
            readCount++;
        }
    }

    /** Also keeps lateness by the moment the collector read each record ({@link #readPercentile}). */
    synchronized Stats readingToo() {
        readHistogram = new long[HISTOGRAM_MS + 1];
        return this;
    }

    /** Keeps each record's delivery time, for {@link #orderInversions}. */
    Stats trackingOrder() {
        times = new long[(int) expected];
        return this;
    }

    /**
     * Records delivered more than {@code toleranceMs} before a record that came earlier on the same intake partition
     * (record n went to intake partition n mod {@code partitions}). Equal due times are claimed in intake order, so
     * this counts where "oldest first" did not hold. Deliveries to different target partitions are stamped by
     * different broker batches, hence the tolerance.
     */
    synchronized long orderInversions(int partitions, long toleranceMs) {
        long inversions = 0;
        for (int p = 0; p < partitions; p++) {
            long latest = Long.MIN_VALUE;
            for (int i = p; i < times.length; i += partitions) {
                if (times[i] == 0) {
                    continue;
                }
                if (times[i] < latest - toleranceMs) {
                    inversions++;
                }
                latest = Math.max(latest, times[i]);
            }
        }
        return inversions;
    }

    synchronized long count() {
        return count;
    }

    /** Lateness at a quantile, in ms (histogram resolution 1 ms, capped at 600 s). */
    synchronized long percentile(double quantile) {
        return quantile(histogram, count, quantile);
    }

    /** Lateness by read time at a quantile, in ms; -1 unless {@link #readingToo} (and some record was read). */
    synchronized long readPercentile(double quantile) {
        return readHistogram == null ? -1 : quantile(readHistogram, readCount, quantile);
    }

    private static long quantile(long[] histogram, long count, double quantile) {
        if (count == 0) {
            return -1;
        }
        long rank = (long) Math.ceil(quantile * count);
        long seenSoFar = 0;
        for (int ms = 0; ms < histogram.length; ms++) {
            seenSoFar += histogram[ms];
            if (seenSoFar >= rank) {
                return ms;
            }
        }
        return HISTOGRAM_MS;
    }

    /**
     * Records per second between the moments 10 % and 90 % of the delivered records had arrived (broker time): the
     * steady state, without start-up and tail.
     */
    synchronized double steadyRate() {
        if (count < 100) {
            return 0;
        }
        long low = (long) (count * 0.10);
        long high = (long) (count * 0.90);
        long cumulative = 0;
        int lowBucket = -1;
        int highBucket = -1;
        for (int b = 0; b < BUCKETS; b++) {
            cumulative += buckets[b];
            if (lowBucket < 0 && cumulative >= low) {
                lowBucket = b;
            }
            if (cumulative >= high) {
                highBucket = b;
                break;
            }
        }
        if (lowBucket < 0 || highBucket <= lowBucket) {
            return 0;
        }
        return (high - low) * 1000.0 / ((highBucket - lowBucket) * (double) BUCKET_MS);
    }

    synchronized String latenessLine() {
        return String.format(
                "lateness p50 %d ms, p99 %d ms, p99.9 %d ms, max %d ms; early %d%s; duplicates %d; "
                        + "delivered %d of %d",
                percentile(0.50),
                percentile(0.99),
                percentile(0.999),
                maxLateness,
                early,
                early > 0 ? " (by up to " + (-minEarlyBy) + " ms)" : "",
                duplicates,
                count,
                expected);
    }
}

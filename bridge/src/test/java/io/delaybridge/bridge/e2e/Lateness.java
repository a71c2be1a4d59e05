package io.delaybridge.bridge.e2e;

import java.util.List;

/** Percentiles of lateness (delivered minus due, ms), for the test output. */
record Lateness(long p50, long p99, long max, int count) {

    static Lateness of(List<Long> latenessMillis) {
        long[] sorted =
                latenessMillis.stream().mapToLong(Long::longValue).sorted().toArray();
        if (sorted.length == 0) {
            return new Lateness(0, 0, 0, 0);
        }
        return new Lateness(at(sorted, 0.50), at(sorted, 0.99), sorted[sorted.length - 1], sorted.length);
    }

    private static long at(long[] sorted, double quantile) {
        int index = (int) Math.ceil(quantile * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }

    @Override
    public String toString() {
        return "lateness over " + count + " records: p50 " + p50 + " ms, p99 " + p99 + " ms, max " + max + " ms";
    }
}

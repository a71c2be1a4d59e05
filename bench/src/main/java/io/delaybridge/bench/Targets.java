package io.delaybridge.bench;

/**
 * The speed targets the benchmark's figures are held against, and how a figure is printed beside its own: "p99 18 ms
 * (target <= 25 ms: PASS)". The targets: lateness at 5,000 records/s due p50 <= 5 ms, p99 <= 25 ms, p99.9 <= 100 ms;
 * at 20,000/s p99 <= 50 ms; the bridge's resident set at most 512 MB in every scenario; a catch-up (records already due
 * when read: the express path) at least 0.6x the plain Kafka copy, records parked in Redis (throughput, parked drain)
 * at least 0.3x; the far tier's thaw at least 0.5x.
 */
final class Targets {

    static final long RSS_MB = 512;
    /** The express path's catch-up against the plain copy. */
    static final double EXPRESS_RATIO = 0.6;
    /** The parked path (stored in Redis, claimed, acked) against the plain copy. */
    static final double PARKED_RATIO = 0.3;
    /** The far tier's thaw (records fetched from the intake by offset and stored hot) against the plain copy. */
    static final double THAW_RATIO = 0.5;

    private Targets() {}

    /** "18 ms (target <= 25 ms: PASS)"; a negative figure (nothing measured) misses. */
    static String atMost(long value, long target, String unit) {
        return String.format(
                "%,d %s (target <= %,d %s: %s)",
                value, unit, target, unit, value >= 0 && value <= target ? "PASS" : "MISS");
    }

    /** "0.42 (target >= 0.6: MISS)". */
    static String ratio(double ratio, double target) {
        return String.format("%.2f (target >= %.1f: %s)", ratio, target, ratio >= target ? "PASS" : "MISS");
    }

    /** "bridge peak RSS 301 MB (target <= 512 MB: PASS)". */
    static String rss(BridgeProcess bridge) {
        return "bridge peak RSS " + atMost(bridge.maxRssMb(), RSS_MB, "MB");
    }

    /** The lateness targets at a due rate: all three at 5,000/s, p99 at 20,000/s, none at other rates. */
    static String lateness(int rate, Stats stats) {
        if (rate == 5_000) {
            return "p50 " + atMost(stats.percentile(0.50), 5, "ms") + ", p99 "
                    + atMost(stats.percentile(0.99), 25, "ms") + ", p99.9 "
                    + atMost(stats.percentile(0.999), 100, "ms");
        }
        if (rate == 20_000) {
            return "p99 " + atMost(stats.percentile(0.99), 50, "ms");
        }
        return "no lateness target at " + rate + " records/s (targets: 5,000/s and 20,000/s)";
    }

    /** "early 0 (target 0: PASS)": a record delivered before it was due breaks the contract at any rate. */
    static String early(Stats stats) {
        return "early " + atMost(stats.early, 0, "records");
    }
}

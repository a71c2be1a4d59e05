package io.delaybridge.bench;

import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Far records for far-thaw: a bridge with a short hot window ({@value #PARK_WINDOW}) reads records due whole hours
 * ahead and writes each as a 12-byte entry in Redis, its payload left in the intake's log; then it is stopped, and the
 * scenario starts it again with a window that reaches their hours, so that they thaw.
 *
 * @param name the bridge's name (its group and key prefix), for the restart
 * @param topics intake, target, deadletter
 * @param count the far records written
 * @param firstHourStart the start (epoch ms) of the first hour they are due in
 * @param writeRate records a second from the first send until Redis held them all far
 */
record FarRecords(String name, String[] topics, long count, long firstHourStart, double writeRate) {

    static final long HOUR_MILLIS = TimeUnit.HOURS.toMillis(1);
    /** The window while the far records are written: any record due later than this when read goes far. */
    static final String PARK_WINDOW = "1m";

    /** The start of the first whole hour at or after {@code epochMillis}. */
    static long hourAtOrAfter(long epochMillis) {
        return Math.floorDiv(epochMillis + HOUR_MILLIS - 1, HOUR_MILLIS) * HOUR_MILLIS;
    }

    /** The environment that sets the bridge's hot window, {@code intake.hotWindow}. */
    static Map<String, String> window(String window) {
        return Map.of("DELAY_HOT_WINDOW", window);
    }

    /** As {@link #window(String)} in whole milliseconds. */
    static Map<String, String> window(long millis) {
        return window(millis + "ms");
    }

    /**
     * Writes {@code n} records due evenly over {@code hours} whole hours from {@code firstHourStart}, in phase
     * {@code phase}, to a fresh bridge {@code name} with the short window, waits until Redis holds all of them far,
     * and stops that bridge.
     */
    static FarRecords write(BenchRun run, String name, int n, long firstHourStart, int hours, int phase)
            throws Exception {
        String[] topics = run.createTopics(name, 3);
        String prefix = run.keyPrefix(name);
        try (BridgeProcess bridge = run.startBridge(name, topics, window(PARK_WINDOW));
                Load load = new Load(run.bootstrap)) {
            long span = hours * HOUR_MILLIS;
            long first = run.nextSeq(n);
            long start = System.nanoTime();
            for (int i = 0; i < n; i++) {
                long dueAt = firstHourStart + (long) ((double) i / n * span);
                load.send(topics[0], null, topics[1], dueAt, first + i, phase);
            }
            load.flush();
            BenchRun.log(
                    "far records: %,d written to the intake in %.1f s, due over %d h from %s",
                    n, BenchRun.seconds(start), hours, java.time.Instant.ofEpochMilli(firstHourStart));
            long far = 0;
            long last = -1;
            long lastChange = System.nanoTime();
            long lastLog = System.nanoTime();
            while ((far = run.farCount(prefix, topics[0])) < n) {
                if (far != last) {
                    last = far;
                    lastChange = System.nanoTime();
                } else if (System.nanoTime() - lastChange > TimeUnit.SECONDS.toNanos(120)) {
                    throw new IllegalStateException(String.format(
                            "only %,d of %,d records went far, none more for 120 s (hot: %,d; far-tier meters:"
                                    + " delay.intake.far %,d, delay.far.enabled; is intake.hotWindow known to this"
                                    + " bridge?)",
                            far, n, run.pending(prefix, topics[0]), bridge.meterCount("delay.intake.far")));
                }
                if (System.nanoTime() - lastLog > TimeUnit.SECONDS.toNanos(10)) {
                    BenchRun.log("  far records: %,d of %,d far", far, n);
                    lastLog = System.nanoTime();
                }
                Thread.sleep(500);
            }
            double rate = n / BenchRun.seconds(start);
            long hot = run.pending(prefix, topics[0]);
            BenchRun.log("far records: %,d far (%,d hot) after %.1f s", far, hot, BenchRun.seconds(start));
            return new FarRecords(name, topics, far, firstHourStart, rate);
        }
    }
}

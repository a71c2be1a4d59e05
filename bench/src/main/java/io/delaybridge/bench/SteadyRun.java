package io.delaybridge.bench;

import java.time.Instant;
import java.util.Random;
import java.util.concurrent.CompletableFuture;

/**
 * A constant due rate for a while, on a running bridge: the measure behind steady, saturation and backlog. Due times
 * are evenly spaced at {@code rate} per second from {@code maxDelayMillis} after the first send; each record is sent
 * {@code minDelayMillis..maxDelayMillis} (uniform) before it is due, so the intake runs at {@code rate} too by the time
 * the first record is due. The first {@code warmupSeconds} of due times only warm up.
 *
 * @param stats the measured window's figures
 * @param cpu the CPU per due record of every process over the window ({@link CpuMeter#perRecord})
 */
record SteadyRun(Stats stats, String cpu) {

    /** Runs one window; {@code atWindowEnd} runs right after it (e.g. a Redis memory reading). */
    static SteadyRun measure(
            BenchRun run,
            Collector collector,
            String[] topics,
            int rate,
            long minDelayMillis,
            long maxDelayMillis,
            int window,
            int warmupSeconds,
            int phase,
            CpuMeter cpu,
            Runnable atWindowEnd)
            throws Exception {
        // The first record is due maxDelay after the first send, so no send time falls before the start (which would
        // make a burst of intake): the intake ramps up to the due rate while nothing is due yet, then both run at it.
        long begin = System.currentTimeMillis() + 2_000;
        long firstDue = begin + maxDelayMillis;
        long windowStart = firstDue + warmupSeconds * 1000L;
        int warm = (int) ((windowStart - firstDue) * (long) rate / 1000);
        int measured = window * rate;
        int n = warm + measured;
        long[] dueAt = new long[n];
        long[] sendAt = new long[n];
        Random random = new Random(phase);
        for (int i = 0; i < n; i++) {
            dueAt[i] = firstDue + (long) i * 1000 / rate;
            long delay = minDelayMillis + (long) (random.nextDouble() * (maxDelayMillis - minDelayMillis));
            sendAt[i] = Math.max(begin, dueAt[i] - delay);
        }
        long base = run.nextSeq(n);
        Stats warmStats = new Stats("warm-up", base, warm);
        Stats stats = new Stats("window", base + warm, measured).readingToo();
        collector.register(phase, warmStats);
        collector.register(phase + 1, stats);
        BenchRun.log(
                "steady run: %,d records/s, delays %d-%d ms, %,d warm-up + %,d measured records, window %s .. "
                        + "+%d s",
                rate, minDelayMillis, maxDelayMillis, warm, measured, Instant.ofEpochMilli(windowStart), window);
        // the load sends until near the window's end: the CPU meter starts at the window's start on its own thread
        CompletableFuture<Long> meterStarted = CompletableFuture.supplyAsync(() -> {
            BenchRun.sleepUntil(windowStart);
            cpu.start();
            return System.currentTimeMillis();
        });
        try (Load load = new Load(run.bootstrap)) {
            load.sendScheduled(topics[0], topics[1], base, dueAt, sendAt, i -> i < warm ? phase : phase + 1);
        }
        long end = windowStart + window * 1000L;
        BenchRun.sleepUntil(end - 500);
        long meteredMillis = System.currentTimeMillis() - meterStarted.get();
        String cpuLine = cpu.perRecord(Math.max(1, meteredMillis * rate / 1000));
        atWindowEnd.run();
        BenchRun.awaitDelivered(stats, 60);
        BenchRun.log("  warm-up: %s", warmStats.latenessLine());
        BenchRun.log("  window:  %s", stats.latenessLine());
        BenchRun.log("  CPU:     %s", cpuLine);
        return new SteadyRun(stats, cpuLine);
    }
}

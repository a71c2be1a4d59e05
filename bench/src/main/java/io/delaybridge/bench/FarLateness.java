package io.delaybridge.bench;

import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * far-thaw's second part: steady lateness ({@link SteadyRun}: {@code --steady-rate} due, delays {@code --min-delay-s
 * .. --max-delay-s}, a {@code --steady-seconds} window after {@code --steady-warmup-s}) on a bridge that holds
 * {@code --far-pending} far records due over {@code --far-pending-hours} whole hours, the first of which comes into
 * its hot window {@code --far-thaw-at-s} into the measured window, so that the thaw of that hour's records runs beside
 * the load. First, in the same run, the same steady load on a fresh bridge without far records: the baseline.
 *
 * <p>The far records are written by a bridge with a short window ({@link FarRecords}); the bridge is then started
 * again with the window that makes the first far hour's start enter it at the planned moment: the hour's start minus
 * that moment. The steady records, due at most the longest delay ahead, stay hot.
 */
final class FarLateness {

    private static final int BASE_PHASE = 122;
    private static final int STEADY_PHASE = 124;
    /** A bridge's start, at most (on a loaded machine), planned into the window's timing. */
    private static final long START_MILLIS = 40_000;
    /** The write of far records to plan for, at the least, records a second. */
    private static final long WRITE_RATE = 10_000;

    private final BenchRun run;

    FarLateness(BenchRun run) {
        this.run = run;
    }

    void run() throws Exception {
        BenchOptions o = run.options;
        SteadyRun base = baseline();
        String label = "far-thaw: steady " + o.steadyRate + " records/s due, delays " + o.delays() + ", "
                + o.steadySeconds + " s measured";
        run.put(label + ", without far records (baseline)", "%s", base.stats().latenessLine());
        run.put(label + ", without far records, CPU", "%s", base.cpu());

        int n = o.far.pending;
        long thawAt = o.far.thawAtSeconds * 1000L;
        // the first far hour must begin after the write, the restart, the warm-up and the window's first seconds
        long plan = n * 1000L / WRITE_RATE
                + 60_000
                + START_MILLIS
                + 2_000
                + o.maxDelayMillis
                + o.steadyWarmupSeconds * 1000L
                + thawAt
                + o.maxDelayMillis
                + 120_000;
        long firstHour = FarRecords.hourAtOrAfter(System.currentTimeMillis() + plan);
        String name = "farlate";
        FarRecords far = FarRecords.write(run, name, n, firstHour, o.far.pendingHours, FarThawScenario.FAR_PHASE);
        run.put(
                "far-thaw: " + n + " far records pending (hot window " + FarRecords.PARK_WINDOW + " while written)",
                "%,d far, due over %d h from %s; %,.0f records/s from the first send until all were far",
                far.count(),
                o.far.pendingHours,
                Instant.ofEpochMilli(firstHour),
                far.writeRate());

        // a rewrite of the AOF the far writes grew takes a core: the load starts after it, as in backlog
        if (!RedisInfo.awaitNoAofRewrite(run.redis(), 10, TimeUnit.MINUTES)) {
            BenchRun.log("  an AOF rewrite still runs after 10 minutes; measuring anyway");
        }
        long rewritesBefore = RedisInfo.field(run.redis().info("persistence"), "aof_rewrites");
        long thawStart = System.currentTimeMillis()
                + START_MILLIS
                + 2_000
                + o.maxDelayMillis
                + o.steadyWarmupSeconds * 1000L
                + thawAt;
        long window = firstHour - thawStart;
        if (window < o.maxDelayMillis + 60_000) {
            throw new IllegalStateException("the far records took too long to write: their first hour begins "
                    + (firstHour - System.currentTimeMillis()) / 1000 + " s from now, too soon for the planned window");
        }
        long firstHourRecords = (long) Math.ceil((double) far.count() / o.far.pendingHours);
        String prefix = run.keyPrefix(name);
        String intake = far.topics()[0];
        try (Collector collector = new Collector(run.bootstrap, List.of(far.topics()[1]));
                BridgeProcess bridge = run.startBridge(name, far.topics(), FarRecords.window(window));
                ThawWatch thawed = new ThawWatch("meter", () -> bridge.meterCount("delay.far.thawed"))) {
            bridge.resetPeaks();
            // the warm-up that puts the window's start thawAt before the first far hour enters the hot window
            long warmup = (thawStart - thawAt - System.currentTimeMillis() - 2_000 - o.maxDelayMillis) / 1000;
            BenchRun.log(
                    "far-thaw: hot window %,d s; the first far hour (%,d records) thaws from %s; warm-up %d s",
                    window / 1000, firstHourRecords, Instant.ofEpochMilli(thawStart), warmup);
            SteadyRun measured = SteadyRun.measure(
                    run,
                    collector,
                    far.topics(),
                    o.steadyRate,
                    o.minDelayMillis,
                    o.maxDelayMillis,
                    o.steadySeconds,
                    (int) Math.max(0, warmup),
                    STEADY_PHASE,
                    run.cpuMeter(bridge),
                    () -> {});
            Stats stats = measured.stats();
            long windowStart = stats.firstDelivered;
            long windowEnd = stats.lastDelivered;
            long inWindow = thawed.at(windowEnd) - thawed.at(windowStart);
            long firstRise = thawed.firstRise();
            long done = thawed.awaitCount(firstHourRecords, 60);
            long doneAt = thawed.reached(firstHourRecords);
            run.put(
                    label + ", beside " + n + " far records",
                    "%s; %s, peak heap %d MB",
                    stats.latenessLine(),
                    Targets.rss(bridge),
                    bridge.maxHeapMb());
            run.put(
                    label + ", beside far records, targets",
                    "%s; %s",
                    Targets.lateness(o.steadyRate, stats),
                    Targets.early(stats));
            run.put(label + ", beside far records, CPU", "%s", measured.cpu());
            run.put(
                    label + ", the thaw beside it",
                    "%,d records thawed within the window; the thaw of the first far hour (%,d records) ran from"
                            + " %+.1f s to %s of the window's start (%,.0f records/s); %,d thawed in all, %,d still"
                            + " far; delay.far.lost %,d; AOF rewrites since the far records were written: %d",
                    inWindow,
                    firstHourRecords,
                    firstRise < 0 ? Double.NaN : (firstRise - windowStart) / 1000.0,
                    doneAt < 0 ? "not done" : String.format("%+.1f s", (doneAt - windowStart) / 1000.0),
                    firstRise < 0 || doneAt <= firstRise ? 0.0 : done * 1000.0 / (doneAt - firstRise),
                    done,
                    run.farCount(prefix, intake),
                    bridge.meterCount("delay.far.lost"),
                    RedisInfo.field(run.redis().info("persistence"), "aof_rewrites") - rewritesBefore);
            Stats b = base.stats();
            run.put(
                    label + ", beside far records / baseline",
                    "p50 %d / %d ms, p99 %d / %d ms, p99.9 %d / %d ms, max %d / %d ms; early %d / %d",
                    stats.percentile(0.5),
                    b.percentile(0.5),
                    stats.percentile(0.99),
                    b.percentile(0.99),
                    stats.percentile(0.999),
                    b.percentile(0.999),
                    stats.maxLateness,
                    b.maxLateness,
                    stats.early,
                    b.early);
        } finally {
            BenchRun.log("far-thaw: %,d keys of %s deleted", run.deleteKeys(prefix), prefix);
        }
    }

    /** The steady load on a fresh bridge without far records, the same warm-up and window. */
    private SteadyRun baseline() throws Exception {
        BenchOptions o = run.options;
        String name = "farbase";
        String[] topics = run.createTopics(name, 3);
        try (Collector collector = new Collector(run.bootstrap, List.of(topics[1]));
                // a window past the longest delay: every record hot, as beside the far records
                BridgeProcess bridge = run.startBridge(name, topics, FarRecords.window(o.maxDelayMillis + 600_000))) {
            return SteadyRun.measure(
                    run,
                    collector,
                    topics,
                    o.steadyRate,
                    o.minDelayMillis,
                    o.maxDelayMillis,
                    o.steadySeconds,
                    o.steadyWarmupSeconds,
                    BASE_PHASE,
                    run.cpuMeter(bridge),
                    () -> {});
        } finally {
            BenchRun.log("far-thaw: %,d keys of the baseline deleted", run.deleteKeys(run.keyPrefix(name)));
        }
    }
}

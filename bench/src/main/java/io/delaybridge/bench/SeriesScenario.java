package io.delaybridge.bench;

import java.util.List;

/**
 * "series": {@code --series-count} series (10,000) due every second ({@code delay-every: 1s}, first occurrences spread
 * evenly over one second) for {@code --series-seconds} (300), on a bridge that first ran the one-shot steady path at
 * the same rate ({@link SteadyRun}, delays {@code --min-delay-s .. --max-delay-s}, after {@code --steady-warmup-s}):
 * the same records a second, once as records and once as occurrences, in one run on one bridge. For each: lateness
 * p50 / p99 (an occurrence's from its {@code delay-due-at}), early records and duplicates (by series id and occurrence),
 * and the CPU per record; for the series also Redis' {@code used_memory} growth per series while they run, and the
 * occurrences the default {@code delay-missed: one} stepped over.
 */
final class SeriesScenario implements Scenario {

    private static final int ONE_SHOT_PHASE = 40;
    private static final int SERIES_PHASE = 42;
    /** Time to write and store the series before the first is due: at least this, plus a second per 2,000. */
    private static final long LEAD_MILLIS = 10_000;

    private final BenchRun run;

    SeriesScenario(BenchRun run) {
        this.run = run;
    }

    @Override
    public void run() throws Exception {
        BenchOptions o = run.options;
        int rate = o.seriesCount;
        String[] topics = run.createTopics("series", 3);
        try (Collector collector = new Collector(run.bootstrap, List.of(topics[1]));
                BridgeProcess bridge = run.startBridge("series", topics)) {
            SteadyRun oneShot = SteadyRun.measure(
                    run,
                    collector,
                    topics,
                    rate,
                    o.minDelayMillis,
                    o.maxDelayMillis,
                    o.seriesSeconds,
                    o.steadyWarmupSeconds,
                    ONE_SHOT_PHASE,
                    run.cpuMeter(bridge),
                    () -> {});
            String name = "series: one-shot records at " + rate + "/s, delays " + o.delays() + ", " + o.seriesSeconds
                    + " s measured";
            run.put(name, "%s; %s", oneShot.stats().latenessLine(), Targets.early(oneShot.stats()));
            run.put(name + ", CPU", "%s", oneShot.cpu());
            series(bridge, collector, topics, rate, o.seriesSeconds);
        }
    }

    /**
     * {@code count} every-second series of {@code seconds} occurrences each, measured over their whole run and without
     * their first minute.
     */
    private void series(BridgeProcess bridge, Collector collector, String[] topics, int count, int seconds)
            throws Exception {
        long occurrences = (long) count * seconds;
        long base = run.nextSeq(occurrences);
        Stats stats = new Stats("series", base, occurrences);
        collector.register(SERIES_PHASE, stats);
        long usedBefore = run.usedMemory();
        long skippedBefore = bridge.meterCount("delay.target.series-skipped." + topics[1]);
        long firstDue = System.currentTimeMillis() + LEAD_MILLIS + count / 2;
        long end = firstDue + seconds * 1000L;
        // the one-shot run leaves out its warm-up: the same figures without the series' first minute (a fifth of a
        // short run), beside those of the whole run
        int warm = Math.min(60, seconds / 5);
        Stats window = stats.windowFrom(firstDue + warm * 1000L, (long) count * (seconds - warm));
        BenchRun.log(
                "series: %,d series every second, %d occurrences each, first due %s",
                count, seconds, java.time.Instant.ofEpochMilli(firstDue));
        try (Load load = new Load(run.bootstrap)) {
            for (int i = 0; i < count; i++) {
                String id = "s" + i + "-" + run.runId;
                load.sendSeries(
                        topics[0],
                        topics[1],
                        id,
                        firstDue + i * 1000L / count,
                        seconds,
                        base + (long) i * seconds,
                        SERIES_PHASE);
            }
            load.flush();
        }
        long written = System.currentTimeMillis();
        if (written > firstDue) {
            BenchRun.log("  series written %d ms after the first was due: raise the lead", written - firstDue);
        }
        BenchRun.sleepUntil(firstDue);
        CpuMeter cpu = run.cpuMeter(bridge).start();
        long meterStart = System.currentTimeMillis();
        // half-way every series is stored, one pending occurrence each (or in flight)
        BenchRun.sleepUntil(firstDue + seconds * 500L);
        String prefix = run.keyPrefix("series");
        long pending = run.pending(prefix, topics[0]);
        long grown = run.usedMemory() - usedBefore;
        BenchRun.sleepUntil(end - 500);
        String cpuLine = cpu.perRecord(Math.max(1, (System.currentTimeMillis() - meterStart) * count / 1000));
        BenchRun.awaitDelivered(stats, 60);
        String name = "series: " + count + " series every second, " + seconds + " s";
        run.put(
                name,
                "%s; %s, duplicates %s; %s",
                stats.latenessLine(),
                Targets.early(stats),
                Targets.atMost(stats.duplicates, 0, "records"),
                Targets.rss(bridge));
        run.put(name + ", after the first " + warm + " s", "%s", window.latenessLine());
        run.put(name + ", CPU", "%s", cpuLine);
        run.put(
                name + ", Redis memory per series (half-way)",
                "%,d B (used_memory grew by %,d B; %,d pending)",
                grown / count,
                grown,
                pending);
        long skipped = bridge.meterCount("delay.target.series-skipped." + topics[1]);
        run.put(
                name + ", stepped over by delay-missed: one",
                "%,d occurrences (meter delay.target.series-skipped)",
                skipped < 0 ? -1 : skipped - Math.max(0, skippedBefore));
    }
}

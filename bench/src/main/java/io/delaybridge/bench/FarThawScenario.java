package io.delaybridge.bench;

import java.time.Instant;
import java.util.Map;

/**
 * "far-thaw": the far tier's thaw (docs/redis-store.md, "The far tier"), in two parts ({@code --far-thaw-parts}).
 *
 * <p><b>rate</b>: {@code --far-thaw-records} records due over {@code --far-thaw-hours} whole hours from the first hour
 * 3 h ahead are written far ({@link FarRecords}); then the bridge starts again with a hot window that reaches past
 * their last hour, so its thaw loop fetches every one of them from the intake by offset and stores it hot at once. The
 * thaw's rate is the growth of the due sets in Redis ({@code ZCARD}, sampled every 250 ms from before the restart),
 * between 10 % and 90 % of the records, beside the plain copy of as many records (a fresh JVM, {@link CopyDrain}) in
 * the same run; CPU per record of each process over the thaw (from the bridge's health check to the last record
 * hot, divided by the records stored hot in that time) and over the copy (from its launch).
 *
 * <p><b>lateness</b>: {@link FarLateness}.
 */
final class FarThawScenario implements Scenario {

    /** The Collector's phases (none of the far records is delivered during the run). */
    private static final int COPY_PHASE = 120;

    static final int FAR_PHASE = 121;
    /** The thaw's records are due this far ahead, at least: a restart's window reaches past them. */
    private static final long AHEAD_MILLIS = 3 * FarRecords.HOUR_MILLIS;

    private final BenchRun run;

    FarThawScenario(BenchRun run) {
        this.run = run;
    }

    @Override
    public void run() throws Exception {
        if (run.options.far.thawParts.contains("rate")) {
            thawRate();
        }
        if (run.options.far.thawParts.contains("lateness")) {
            new FarLateness(run).run();
        }
    }

    private void thawRate() throws Exception {
        FarOptions o = run.options.far;
        int n = o.thawRecords;
        CopyDrain copy = CopyDrain.cold(run, "farcopy", n, COPY_PHASE);
        run.put(
                "far-thaw: plain Kafka copy of " + n + " records, a fresh JVM",
                "%,.0f records/s steady (%,.0f/s from start to last); %,d of %,d copied",
                copy.steadyRate(),
                copy.startToLast(),
                copy.stats().count(),
                n);
        run.put("far-thaw: plain Kafka copy, CPU (from its launch)", "%s", copy.cpu());

        String name = "farthaw";
        long firstHour = FarRecords.hourAtOrAfter(System.currentTimeMillis() + AHEAD_MILLIS);
        FarRecords far = FarRecords.write(run, name, n, firstHour, o.thawHours, FAR_PHASE);
        run.put(
                "far-thaw: " + n + " records written far (hot window " + FarRecords.PARK_WINDOW + ")",
                "%,d far, due over %d h from %s; %,.0f records/s from the first send until all were far",
                far.count(),
                o.thawHours,
                Instant.ofEpochMilli(firstHour),
                far.writeRate());
        String prefix = run.keyPrefix(name);
        String intake = far.topics()[0];
        long hotBefore = run.pending(prefix, intake);
        // a window past the last far hour: every hour thaws at once when the bridge starts again
        long window = firstHour + o.thawHours * FarRecords.HOUR_MILLIS - System.currentTimeMillis() + 600_000;
        Map<String, Long> commandsBefore = run.commandMicros();
        try (ThawWatch hot = new ThawWatch("hot", () -> run.pending(prefix, intake))) {
            long launched = System.currentTimeMillis();
            // the thaw's capacity: at full speed, not paced as ahead of an hour (intake.thawAheadRate 0)
            Map<String, String> env = new java.util.HashMap<>(FarRecords.window(window));
            env.put("DELAY_THAW_AHEAD_RATE", "0");
            try (BridgeProcess bridge = run.startBridge(name, far.topics(), env)) {
                bridge.resetPeaks();
                long hotAtReady = hot.latest();
                CpuMeter cpu = run.cpuMeter(bridge).start();
                long end = hot.awaitCount(hotBefore + far.count(), 300);
                long records = Math.max(1, end - hotAtReady);
                String cpuLine = cpu.perRecord(records);
                Map<String, Long> commandsAfter = run.commandMicros();
                long first = hot.firstRise();
                long last = hot.reached(hotBefore + far.count());
                long thawed = end - hotBefore;
                double steady = hot.steadyRate(hotBefore, far.count());
                double firstToLast =
                        first < 0 || last <= first ? 0 : (hot.at(last) - hot.at(first)) * 1000.0 / (last - first);
                run.put(
                        "far-thaw: " + n + " far records thawed at once (hot window " + window / 60_000 + " min)",
                        "%,.0f records/s steady (10-90 %%), %,.0f/s from the first to the last record hot (%.1f s);"
                                + " thaw began %,d ms after the restart's launch; %,d of %,d stored hot, %,d still"
                                + " far; meters delay.far.thawed %,d, delay.far.lost %,d; %s, peak heap %d MB",
                        steady,
                        firstToLast,
                        (last - first) / 1000.0,
                        first < 0 ? -1 : first - launched,
                        thawed,
                        far.count(),
                        run.farCount(prefix, intake),
                        bridge.meterCount("delay.far.thawed"),
                        bridge.meterCount("delay.far.lost"),
                        Targets.rss(bridge),
                        bridge.maxHeapMb());
                run.put(
                        "far-thaw: bridge, CPU (from its health check to the last record hot; "
                                + String.format("%,d", records) + " records)",
                        "%s",
                        cpuLine);
                run.put(
                        "far-thaw: Redis by command",
                        "%s",
                        BenchRun.commandCost(commandsBefore, commandsAfter, thawed));
                run.put(
                        "far-thaw: thaw / plain copy",
                        "%s (steady rates, %,.0f against %,.0f records/s)",
                        Targets.ratio(steady / Math.max(1, copy.steadyRate()), Targets.THAW_RATIO),
                        steady,
                        copy.steadyRate());
            }
        } finally {
            BenchRun.log("far-thaw: %,d keys of %s deleted", run.deleteKeys(prefix), prefix);
        }
    }
}

package io.delaybridge.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * "steady": a constant due rate ({@code --steady-rate}, 5,000/s) with delays spread over {@code --min-delay-s ..
 * --max-delay-s}; lateness p50 / p99 / p99.9 / max and early records over a {@code --steady-seconds} window, each
 * beside its target. {@code --steady-second-rate} (e.g. 20,000) adds a second step on the same bridge. Also the Redis
 * memory per pending record at the end of the first window.
 *
 * <p>The baseline, measured first at each rate in the same run: the plain Kafka copy ({@link PlainCopy}) of records
 * sent at their due time, so its "lateness" is the broker and the copier's latency at that rate: the floor under the
 * bridge's. The bridge's lateness is printed beside it with the ratio of the p99s.
 */
final class SteadyScenario implements Scenario {

    /** The Collector's phases of the copy's steps (the bridge's are 10 and up). */
    private static final int COPY_PHASE = 110;

    private final BenchRun run;

    SteadyScenario(BenchRun run) {
        this.run = run;
    }

    @Override
    public void run() throws Exception {
        BenchOptions o = run.options;
        List<Integer> rates = new ArrayList<>(List.of(o.steadyRate));
        if (o.steadySecondRate > 0) {
            rates.add(o.steadySecondRate);
        }
        List<SteadyRun> copies = new ArrayList<>();
        int copyPhase = COPY_PHASE;
        for (int rate : rates) {
            SteadyRun copy = copyStep(rate, copyPhase);
            copyPhase += 2;
            copies.add(copy);
            String name = "steady: plain Kafka copy at " + rate + " records/s (sent at their due time), "
                    + o.steadySeconds + " s measured";
            run.put(name, "%s", copy.stats().latenessLine());
            run.put(name + ", CPU", "%s", copy.cpu());
        }
        for (boolean exactlyOnce : o.exactlyOnce) {
            bridgeSteps(rates, copies, exactlyOnce);
        }
    }

    /** The bridge's steps at {@code rates}, with exactly once as given, each beside the copy at its rate. */
    private void bridgeSteps(List<Integer> rates, List<SteadyRun> copies, boolean exactlyOnce) throws Exception {
        BenchOptions o = run.options;
        String scenario = exactlyOnce ? "steadyeos" : "steady";
        String mode = exactlyOnce ? " (exactly once)" : "";
        String[] topics = run.createTopics(scenario, 3);
        try (Collector collector = new Collector(run.bootstrap, List.of(topics[1]), exactlyOnce);
                BridgeProcess bridge = run.startBridge(scenario, topics, exactlyOnce)) {
            String prefix = run.keyPrefix(scenario);
            long usedBefore = run.usedMemory();
            int phase = 10;
            int warmup = o.steadyWarmupSeconds; // a fresh bridge's first step; a second step finds it compiled
            for (int step = 0; step < rates.size(); step++) {
                int rate = rates.get(step);
                bridge.resetPeaks();
                Runnable memoryAtWindowEnd = phase > 10 || exactlyOnce
                        ? () -> {}
                        : () -> {
                            long pending = run.pending(prefix, topics[0]);
                            long used = run.usedMemory();
                            run.put(
                                    "steady: Redis memory per pending record (sampled at the end of the window)",
                                    "%,d B (%,d pending, used_memory grew by %,d B)",
                                    pending == 0 ? 0 : (used - usedBefore) / pending,
                                    pending,
                                    used - usedBefore);
                        };
                long expressBefore = bridge.meterCount("delay.intake.express");
                long parkedBefore = bridge.meterCount("delay.intake.parked");
                SteadyRun measured = SteadyRun.measure(
                        run,
                        collector,
                        topics,
                        rate,
                        o.minDelayMillis,
                        o.maxDelayMillis,
                        o.steadySeconds,
                        warmup,
                        phase,
                        run.cpuMeter(bridge),
                        memoryAtWindowEnd);
                warmup = o.stepWarmupSeconds;
                phase += 2;
                String name = "steady" + mode + ": " + rate + " records/s due, delays " + o.delays() + ", "
                        + o.steadySeconds + " s measured";
                run.put(
                        name + ", paths (warm-up and window)",
                        "express %,d, parked %,d records (the bridge's meters delay.intake.express / "
                                + "delay.intake.parked)",
                        bridge.meterCount("delay.intake.express") - expressBefore,
                        bridge.meterCount("delay.intake.parked") - parkedBefore);
                report(name, measured, copies.get(step).stats(), bridge, exactlyOnce, rate);
            }
        }
    }

    /** One step's figures: the bridge's lateness (by broker time and as its reader reads it), CPU, paths, beside the copy. */
    private void report(
            String name, SteadyRun measured, Stats copy, BridgeProcess bridge, boolean exactlyOnce, int rate) {
        Stats bridgeStats = measured.stats();
        run.put(name, "%s; %s, peak heap %d MB", bridgeStats.latenessLine(), Targets.rss(bridge), bridge.maxHeapMb());
        run.put(name + ", targets", "%s; %s", Targets.lateness(rate, bridgeStats), Targets.early(bridgeStats));
        run.put(
                name + ", as its reader reads it",
                "p50 %d ms, p99 %d ms, p99.9 %d ms (the collector's read time minus due, %s: a transaction's "
                        + "commit included)",
                bridgeStats.readPercentile(0.5),
                bridgeStats.readPercentile(0.99),
                bridgeStats.readPercentile(0.999),
                exactlyOnce ? "read_committed" : "read_uncommitted");
        run.put(name + ", CPU", "%s", measured.cpu());
        run.put(
                name + ", bridge / plain copy",
                "p50 %d / %d ms, p99 %d / %d ms, p99.9 %d / %d ms; p99 " + "ratio %.1f",
                bridgeStats.percentile(0.5),
                copy.percentile(0.5),
                bridgeStats.percentile(0.99),
                copy.percentile(0.99),
                bridgeStats.percentile(0.999),
                copy.percentile(0.999),
                bridgeStats.percentile(0.99) / (double) Math.max(1, copy.percentile(0.99)));
    }

    /** The plain copy of records sent at their due time, at {@code rate}, after {@code --step-warmup-s}. */
    private SteadyRun copyStep(int rate, int phase) throws Exception {
        String[] topics = run.createTopics("steadycopy" + rate, 3);
        try (Collector collector = new Collector(run.bootstrap, List.of(topics[1]));
                PlainCopy copy = new PlainCopy(run.bootstrap, topics[0], "steadycopy" + rate + run.runId)) {
            return SteadyRun.measure(
                    run,
                    collector,
                    topics,
                    rate,
                    0,
                    0,
                    run.options.steadySeconds,
                    run.options.stepWarmupSeconds,
                    phase,
                    run.cpuMeter(0),
                    () -> {});
        }
    }
}

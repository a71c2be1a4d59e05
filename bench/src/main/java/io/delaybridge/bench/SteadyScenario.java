package io.delaybridge.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * "steady": a constant due rate ({@code --steady-rate}, 5,000/s) with delays spread over {@code --min-delay-s ..
 * --max-delay-s}; lateness p50 / p99 / p99.9 / max and early records over a {@code --steady-seconds} window, each
 * beside its target. {@code --steady-second-rate} (e.g. 20,000) adds a second step on the same bridge. Also the Redis
 * memory per pending record at the end of the first window.
 */
final class SteadyScenario implements Scenario {

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
        String[] topics = run.createTopics("steady", 3);
        try (Collector collector = new Collector(run.bootstrap, List.of(topics[1]));
                BridgeProcess bridge = run.startBridge("steady", topics)) {
            String prefix = run.keyPrefix("steady");
            long usedBefore = run.usedMemory();
            int phase = 10;
            int warmup = o.steadyWarmupSeconds; // a fresh bridge's first step; a second step finds it compiled
            for (int rate : rates) {
                bridge.resetPeaks();
                Runnable memoryAtWindowEnd = phase > 10 ? () -> { } : () -> {
                    long pending = run.pending(prefix, topics[0]);
                    long used = run.usedMemory();
                    run.put("steady: Redis memory per pending record (sampled at the end of the window)",
                            "%,d B (%,d pending, used_memory grew by %,d B)", pending == 0 ? 0 : (used - usedBefore)
                                    / pending, pending, used - usedBefore);
                };
                SteadyRun step = SteadyRun.measure(run, collector, topics, rate, o.minDelaySeconds,
                        o.maxDelaySeconds, o.steadySeconds, warmup, phase, run.cpuMeter(bridge), memoryAtWindowEnd);
                warmup = o.stepWarmupSeconds;
                phase += 2;
                String name = "steady: " + rate + " records/s due, delays " + o.minDelaySeconds + "-"
                        + o.maxDelaySeconds + " s, " + o.steadySeconds + " s measured";
                run.put(name, "%s; %s, peak heap %d MB", step.stats().latenessLine(), Targets.rss(bridge),
                        bridge.maxHeapMb());
                run.put(name + ", targets", "%s; %s", Targets.lateness(rate, step.stats()),
                        Targets.early(step.stats()));
                run.put(name + ", CPU", "%s", step.cpu());
            }
        }
    }
}

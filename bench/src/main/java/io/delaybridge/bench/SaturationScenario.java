package io.delaybridge.bench;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;

/**
 * "saturation": rising due rates ({@code --rates}) on one bridge, delays 1-5 s, a {@code --step-seconds} window each:
 * where lateness grows. Stops after the first step whose p99 passes 10 s or that misses records. Plots p50 / p99 /
 * p99.9 / max against the rate into {@code --svg}.
 */
final class SaturationScenario implements Scenario {

    private final BenchRun run;

    SaturationScenario(BenchRun run) {
        this.run = run;
    }

    @Override
    public void run() throws Exception {
        String[] topics = run.createTopics("sat", 3);
        int window = run.options.stepSeconds;
        List<double[]> sweep = new ArrayList<>(); // rate, p50, p99, p99.9, max, delivered rate
        try (Collector collector = new Collector(run.bootstrap, List.of(topics[1]));
                BridgeProcess bridge = run.startBridge("sat", topics)) {
            int phase = 20;
            int warmup = run.options.steadyWarmupSeconds; // the bridge's first step; later steps find it compiled
            for (int rate : run.options.rates) {
                bridge.resetPeaks();
                SteadyRun step = SteadyRun.measure(
                        run,
                        collector,
                        topics,
                        rate,
                        1_000,
                        5_000,
                        window,
                        warmup,
                        phase,
                        run.cpuMeter(bridge),
                        () -> {});
                Stats stats = step.stats();
                warmup = run.options.stepWarmupSeconds;
                phase += 2;
                sweep.add(new double[] {
                    rate,
                    stats.percentile(0.5),
                    stats.percentile(0.99),
                    stats.percentile(0.999),
                    stats.maxLateness,
                    stats.steadyRate()
                });
                String name = "saturation: " + rate + " records/s due (delays 1-5 s, " + window + " s)";
                run.put(name, "%s; %s, peak heap %d MB", stats.latenessLine(), Targets.rss(bridge), bridge.maxHeapMb());
                if (rate == 5_000 || rate == 20_000) {
                    run.put(name + ", targets", "%s", Targets.lateness(rate, stats));
                }
                run.put(name + ", CPU", "%s", step.cpu());
                if (stats.count() < stats.expected || stats.percentile(0.99) > 10_000) {
                    BenchRun.log(
                            "lateness p99 above 10 s or records missing at %d records/s: the bridge is " + "saturated",
                            rate);
                    break;
                }
            }
        }
        if (!sweep.isEmpty()) {
            // outside the repository unless asked: a short trial run used to overwrite the documented plot
            Files.createDirectories(run.options.svg.toAbsolutePath().getParent());
            Files.writeString(run.options.svg, LatenessPlot.svg(sweep));
            run.putPlain("plot", run.options.svg.toString());
        }
    }
}

package io.delaybridge.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * "throughput": the plain Kafka copy, then the bridge, each draining a preloaded intake of records all due, behind a
 * warm-up of its own; each measured over consecutive windows of {@code --records}, the median window counting, with
 * the CPU per record of every process and, for the bridge, Redis' cost per command.
 */
final class ThroughputScenario implements Scenario {

    /** The Collector's phases: warm-ups, then the windows of the plain copy from 60, of the bridge from 80. */
    private static final int COPY_WARMUP_PHASE = 5;

    private static final int BRIDGE_WARMUP_PHASE = 6;
    private static final int COPY_WINDOW_PHASE = 60;
    private static final int BRIDGE_WINDOW_PHASE = 80;

    private final BenchRun run;

    ThroughputScenario(BenchRun run) {
        this.run = run;
    }

    @Override
    public void run() throws Exception {
        int n = run.options.records;
        // Each copy is measured over several consecutive windows of n records in the same drain, and the median
        // window counts: on this shared machine one window of the same build moved by +-10 % between runs (the
        // hypervisor's steal time came and went), and the spread says how far a single figure can be trusted.
        int windows = run.options.windows;
        // Both copies first work through a warm-up of their own, measured apart: a fresh JVM spends its first tens of
        // seconds compiling (the bridge's C2 thread took a third of its CPU in a 1.5M-record drain), and a service
        // runs for days. The warm-up records come first in the same intake, so the measured ones follow at once.
        // 2,000,000: after 500,000 (~20 s) the bridge still compiled ~100 methods a second (-XX:+PrintCompilation),
        // and both copies measured ~1.5x their settled CPU per record.
        int warmup = run.options.warmup;
        String[] copyTopics = run.createTopics("copy", 3);
        Stats copyWarm = run.preloaded("plain copy warm-up", copyTopics, warmup, COPY_WARMUP_PHASE);
        long preloadRate = 0; // of the first window: the producer's rate to a 16-partition intake
        List<Stats> copyWindows = new ArrayList<>();
        for (int i = 0; i < windows; i++) {
            long started = System.nanoTime();
            copyWindows.add(run.preloaded("plain copy", copyTopics, n, COPY_WINDOW_PHASE + i));
            preloadRate = i == 0 ? (long) (n / BenchRun.seconds(started)) : preloadRate;
        }
        Windows copy;
        try (Collector collector = new Collector(run.bootstrap, List.of(copyTopics[1]))) {
            collector.register(COPY_WARMUP_PHASE, copyWarm);
            register(collector, copyWindows, COPY_WINDOW_PHASE);
            try (PlainCopy plainCopy = new PlainCopy(run.bootstrap, copyTopics[0], "copy" + run.runId)) {
                BenchRun.awaitDelivered(copyWarm, 300);
                copy = measure(copyWindows, run.cpuMeter(0), 300);
            }
        }
        run.put(
                "throughput: preload (producer to the intake, 16 partitions, with delay headers)",
                "%,d records/s",
                preloadRate);
        run.put(
                "throughput: plain Kafka copy (baseline)",
                "%,.0f records/s steady, median of %s (%,d of %,d " + "copied, after %,d warm-up records at %,.0f/s)",
                copy.medianRate(),
                copy.rates(),
                copy.count(),
                n * windows,
                warmup,
                copyWarm.steadyRate());
        run.put("throughput: plain Kafka copy, CPU", "%s", copy.cpu());

        // the bridge: the same records, all due, in a preloaded intake, behind its own warm-up
        String[] topics = run.createTopics("thru", 3);
        Stats bridgeWarm = run.preloaded("bridge warm-up", topics, warmup, BRIDGE_WARMUP_PHASE);
        List<Stats> bridgeWindows = new ArrayList<>();
        for (int i = 0; i < windows; i++) {
            bridgeWindows.add(run.preloaded("bridge", topics, n, BRIDGE_WINDOW_PHASE + i));
        }
        try (Collector collector = new Collector(run.bootstrap, List.of(topics[1]));
                BridgeProcess bridge = run.startBridge("thru", topics)) {
            collector.register(BRIDGE_WARMUP_PHASE, bridgeWarm);
            register(collector, bridgeWindows, BRIDGE_WINDOW_PHASE);
            BenchRun.awaitDelivered(bridgeWarm, 600);
            bridge.resetPeaks();
            Map<String, Long> commandsBefore = run.commandMicros();
            Windows thru = measure(bridgeWindows, run.cpuMeter(bridge), 600);
            String redisCommands = BenchRun.commandCost(commandsBefore, run.commandMicros(), thru.count());
            run.put(
                    "throughput: bridge end to end (intake -> Redis -> pump -> target)",
                    "%,.0f records/s steady, median of %s (%,d of %,d delivered, %d early, %d duplicates, after %,d "
                            + "warm-up records at %,.0f/s); %s, peak heap %d MB",
                    thru.medianRate(),
                    thru.rates(),
                    thru.count(),
                    n * windows,
                    thru.early(),
                    thru.duplicates(),
                    warmup,
                    bridgeWarm.steadyRate(),
                    Targets.rss(bridge),
                    bridge.maxHeapMb());
            run.put("throughput: bridge end to end, CPU", "%s", thru.cpu());
            run.put("throughput: bridge end to end, Redis commands", "%s", redisCommands);
            run.put(
                    "throughput: bridge / plain copy",
                    "%s (medians)",
                    Targets.ratio(thru.medianRate() / copy.medianRate(), Targets.PARKED_RATIO));
        }
    }

    private static void register(Collector collector, List<Stats> windows, int firstPhase) {
        for (int i = 0; i < windows.size(); i++) {
            collector.register(firstPhase + i, windows.get(i));
        }
    }

    /** Waits for the windows in order; the CPU line covers them all. */
    private static Windows measure(List<Stats> windows, CpuMeter cpu, int idleSeconds) throws InterruptedException {
        cpu.start();
        for (Stats window : windows) {
            BenchRun.awaitDelivered(window, idleSeconds);
        }
        return new Windows(
                windows, cpu.perRecord(windows.stream().mapToLong(Stats::count).sum()));
    }

    /** Consecutive measured windows of one drain: each window's steady rate, and CPU per record over all of them. */
    private record Windows(List<Stats> windows, String cpu) {

        double medianRate() {
            double[] rates =
                    windows.stream().mapToDouble(Stats::steadyRate).sorted().toArray();
            return rates.length % 2 == 1
                    ? rates[rates.length / 2]
                    : (rates[rates.length / 2 - 1] + rates[rates.length / 2]) / 2;
        }

        /** "3 windows of 1,000,000: 42,083 / 44,768 / 47,619 records/s" in window order. */
        String rates() {
            return String.format(
                    "%d windows of %,d: %s records/s",
                    windows.size(),
                    windows.get(0).expected,
                    windows.stream()
                            .map(w -> String.format("%,.0f", w.steadyRate()))
                            .collect(Collectors.joining(" / ")));
        }

        long count() {
            return windows.stream().mapToLong(Stats::count).sum();
        }

        long early() {
            return windows.stream().mapToLong(w -> w.early).sum();
        }

        long duplicates() {
            return windows.stream().mapToLong(w -> w.duplicates).sum();
        }
    }
}

package io.delaybridge.bench;

import java.util.List;

/**
 * Catch-up after an outage: {@code --catch-up-records} records (default 300,000, 200-byte values) wait in the intake,
 * all already due, and the service starts cold; measured from its start to the last delivery. The plain Kafka copy
 * drains its own preloaded topic the same way first, in this JVM, and the ratio is printed. Unlike "throughput" there
 * is no warm-up: the JIT's start-up is part of what an outage's catch-up costs.
 */
final class CatchUpScenario {

    /** The Collector's phases: the plain copy's records, then the bridge's. */
    private static final int COPY_PHASE = 90;
    private static final int BRIDGE_PHASE = 91;

    private final DelayBenchmark bench;

    CatchUpScenario(DelayBenchmark bench) {
        this.bench = bench;
    }

    void run() throws Exception {
        int n = bench.options.intOf("catch-up-records", 300_000);

        String[] copyTopics = bench.createTopics("catchcopy", 3);
        Stats copy = bench.preloaded("catch-up plain copy", copyTopics, n, COPY_PHASE);
        double copyRate;
        try (Collector collector = new Collector(bench.bootstrap, List.of(copyTopics[1]))) {
            collector.register(COPY_PHASE, copy);
            long start = System.currentTimeMillis();
            try (PlainCopy plainCopy = new PlainCopy(bench.bootstrap, copyTopics[0], "catchcopy" + bench.runId)) {
                DelayBenchmark.awaitDelivered(copy, 300);
            }
            copyRate = drainRate(copy, start);
        }
        bench.put("catch-up: plain Kafka copy, started cold", "%,.0f records/s from start to last (%,.0f/s steady); "
                + "%,d of %,d copied", copyRate, copy.steadyRate(), copy.count(), n);

        String[] topics = bench.createTopics("catchup", 3);
        Stats bridge = bench.preloaded("catch-up bridge", topics, n, BRIDGE_PHASE);
        try (Collector collector = new Collector(bench.bootstrap, List.of(topics[1]))) {
            collector.register(BRIDGE_PHASE, bridge);
            long start = System.currentTimeMillis();
            try (BridgeProcess process = bench.startBridge("catchup", topics)) {
                DelayBenchmark.awaitDelivered(bridge, 600);
                double rate = drainRate(bridge, start);
                bench.put("catch-up: bridge, started cold (JVM start included)", "%,.0f records/s from start to last "
                        + "(%,.0f/s steady); %,d of %,d delivered, %d early, %d duplicates; bridge peak RSS %d MB, "
                        + "peak heap %d MB", rate, bridge.steadyRate(), bridge.count(), n, bridge.early,
                        bridge.duplicates, process.maxRssMb(), process.maxHeapMb());
                bench.put("catch-up: bridge / plain copy", "%.2f (from start to last delivery)", rate / copyRate);
            }
        }
    }

    /** Records per second from {@code startMillis} to the last delivery (broker time). */
    private static double drainRate(Stats stats, long startMillis) {
        long lastMillis;
        synchronized (stats) {
            lastMillis = stats.lastDelivered;
        }
        return stats.count() * 1000.0 / Math.max(1, lastMillis - startMillis);
    }
}

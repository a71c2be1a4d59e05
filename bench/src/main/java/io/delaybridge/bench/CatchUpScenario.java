package io.delaybridge.bench;

import java.util.List;

/**
 * "catch-up", the outage's aftermath: {@code --catch-up-records} records (200-byte values) wait in the intake, all
 * already due, and the service starts cold; measured from its start to the last delivery. The plain Kafka copy drains
 * its own preloaded topic the same way first, as a fresh JVM, and the ratio is printed; also beside the copy on a
 * thread of the warm benchmark JVM ({@link CopyDrain}). Unlike "throughput" there
 * is no warm-up: the JIT's start-up is part of what an outage's catch-up costs. A record already due may take the
 * express path (delivered straight from the intake, never stored in Redis) or be parked (stored, claimed, acked); the
 * bridge's meters {@code delay.intake.express} and {@code delay.intake.parked} say how many took each ("n/a" where the
 * bridge has no such meter).
 */
final class CatchUpScenario implements Scenario {

    /** The Collector's phases: the plain copies' records, then the bridge's. */
    private static final int COPY_PHASE = 90;

    private static final int BRIDGE_PHASE = 91;
    private static final int WARM_COPY_PHASE = 92;

    private final BenchRun run;

    CatchUpScenario(BenchRun run) {
        this.run = run;
    }

    @Override
    public void run() throws Exception {
        int n = run.options.catchUpRecords;
        CopyDrain warm = CopyDrain.warm(run, "catchwarm", n, WARM_COPY_PHASE);
        run.put(
                "catch-up: plain Kafka copy in the warm bench JVM",
                "%,.0f records/s from start to last (%,.0f/s " + "steady); %,d of %,d copied",
                warm.startToLast(),
                warm.steadyRate(),
                warm.stats().count(),
                n);
        CopyDrain copy = CopyDrain.cold(run, "catchcopy", n, COPY_PHASE);
        run.put(
                "catch-up: plain Kafka copy, a fresh JVM",
                "%,.0f records/s from start to last (%,.0f/s steady); " + "%,d of %,d copied",
                copy.startToLast(),
                copy.steadyRate(),
                copy.stats().count(),
                n);
        run.put("catch-up: plain Kafka copy, a fresh JVM, CPU (from its launch)", "%s", copy.cpu());

        String[] topics = run.createTopics("catchup", 3);
        Stats bridge = run.preloaded("catch-up bridge", topics, n, BRIDGE_PHASE);
        try (Collector collector = new Collector(run.bootstrap, List.of(topics[1]))) {
            collector.register(BRIDGE_PHASE, bridge);
            long start = System.currentTimeMillis();
            try (BridgeProcess process = run.startBridge("catchup", topics)) {
                CpuMeter cpu = run.cpuMeter(process).start();
                BenchRun.awaitDelivered(bridge, 600);
                double rate = BenchRun.drainRate(bridge, start);
                String cpuLine = cpu.perRecord(bridge.count());
                run.put(
                        "catch-up: bridge, started cold (JVM start included)",
                        "%,.0f records/s from start to last "
                                + "(%,.0f/s steady); %,d of %,d delivered, %d duplicates; %s; %s, peak heap %d MB",
                        rate,
                        bridge.steadyRate(),
                        bridge.count(),
                        n,
                        bridge.duplicates,
                        Targets.early(bridge),
                        Targets.rss(process),
                        process.maxHeapMb());
                run.put("catch-up: bridge, CPU (from its health check to the last delivery)", "%s", cpuLine);
                run.put("catch-up: paths", "%s", paths(process));
                run.put(
                        "catch-up: bridge / plain copy in a fresh JVM",
                        "%s (steady rates); %.2f from start to last " + "delivery",
                        Targets.ratio(bridge.steadyRate() / copy.steadyRate(), Targets.EXPRESS_RATIO),
                        rate / copy.startToLast());
                run.put(
                        "catch-up: bridge / plain copy in the warm bench JVM",
                        "%.2f (steady rates); %.2f from start " + "to last delivery",
                        bridge.steadyRate() / warm.steadyRate(),
                        rate / warm.startToLast());
            }
        }
    }

    /**
     * "express 290,000, parked 10,000 (1,200 of them after a failed check or first send) records (the bridge's
     * meters)", or n/a for a meter the bridge does not have.
     */
    static String paths(BridgeProcess bridge) {
        return "express " + count(bridge.meterCount("delay.intake.express")) + ", parked "
                + count(bridge.meterCount("delay.intake.parked")) + " ("
                + count(bridge.meterCount("delay.intake.express-fallback")) + " of them admitted to the express path, "
                + "then parked after a failed check or first send) records (the bridge's meters delay.intake.express "
                + "/ delay.intake.parked / delay.intake.express-fallback)";
    }

    private static String count(long count) {
        return count < 0 ? "n/a" : String.format("%,d", count);
    }
}

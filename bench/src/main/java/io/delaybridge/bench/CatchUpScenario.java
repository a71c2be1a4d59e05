package io.delaybridge.bench;

import io.delaybridge.testkit.ChildJvm;
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
 *
 * <p>With {@code --peer-command}, another scheduler (e.g. a Kafka Streams one) drains the same load after the bridge
 * is gone: its own preloaded topic, each record's due time also in {@code --peer-header}, started cold by its command
 * and measured the same way; the bridge's rate from start to last delivery is printed against it. Both lines give the
 * first delivery after the process started too. With {@code --exactly-once off,on} the bridge runs once per mode
 * (read {@code read_committed} with it on); the peer is compared with the first.
 */
final class CatchUpScenario implements Scenario {

    /** The Collector's phases: the plain copies' records, then the bridge's. */
    private static final int COPY_PHASE = 90;

    private static final int BRIDGE_PHASE = 91;
    private static final int WARM_COPY_PHASE = 92;
    private static final int PEER_PHASE = 93;

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

        double rate = Double.NaN;
        for (boolean exactlyOnce : run.options.exactlyOnce) {
            double drained = bridge(n, copy, warm, exactlyOnce);
            if (Double.isNaN(rate)) {
                rate = drained; // the peer is compared with the first mode given (exactly once off by default)
            }
        }
        if (!run.options.peerCommand.isEmpty()) {
            peer(n, rate);
        }
    }

    /** The bridge's cold catch-up with exactly once as given, beside the copies; its rate from start to last. */
    private double bridge(int n, CopyDrain copy, CopyDrain warm, boolean exactlyOnce) throws Exception {
        String mode = exactlyOnce ? " (exactly once)" : "";
        String[] topics = run.createTopics(exactlyOnce ? "catchupeos" : "catchup", 3);
        Stats bridge = run.preloaded("catch-up bridge" + mode, topics, n, BRIDGE_PHASE);
        try (Collector collector = new Collector(run.bootstrap, List.of(topics[1]), exactlyOnce)) {
            collector.register(BRIDGE_PHASE, bridge);
            long start = System.currentTimeMillis();
            try (BridgeProcess process = run.startBridge(exactlyOnce ? "catchupeos" : "catchup", topics, exactlyOnce)) {
                CpuMeter cpu = run.cpuMeter(process).start();
                BenchRun.awaitDelivered(bridge, 600);
                double rate = BenchRun.drainRate(bridge, start);
                String cpuLine = cpu.perRecord(bridge.count());
                run.put(
                        "catch-up: bridge" + mode + ", started cold (JVM start included)",
                        "%,.0f records/s from start to last "
                                + "(%,.0f/s steady), first delivery %,d ms after the start; %,d of %,d delivered, %d "
                                + "duplicates; %s; %s, peak heap %d MB",
                        rate,
                        bridge.steadyRate(),
                        StartupScenario.firstDelivery(bridge, start),
                        bridge.count(),
                        n,
                        bridge.duplicates,
                        Targets.early(bridge),
                        Targets.rss(process),
                        process.maxHeapMb());
                run.put(
                        "catch-up: bridge" + mode + ", CPU (from its health check to the last delivery)",
                        "%s",
                        cpuLine);
                run.put("catch-up: paths" + mode, "%s", paths(process));
                run.put(
                        "catch-up: bridge" + mode + " / plain copy in a fresh JVM",
                        "%s (steady rates); %.2f from start to last " + "delivery",
                        Targets.ratio(bridge.steadyRate() / copy.steadyRate(), Targets.EXPRESS_RATIO),
                        rate / copy.startToLast());
                run.put(
                        "catch-up: bridge" + mode + " / plain copy in the warm bench JVM",
                        "%.2f (steady rates); %.2f from start " + "to last delivery",
                        bridge.steadyRate() / warm.steadyRate(),
                        rate / warm.startToLast());
                return rate;
            }
        }
    }

    /** The peer's drain of its own preloaded topic, started cold; the bridge's {@code rate} against it. */
    private void peer(int n, double bridgeRate) throws Exception {
        String[] topics = run.createTopics("catchpeer", 3);
        Stats peer = run.preloaded("catch-up peer", topics, n, PEER_PHASE, run.options.peerHeader);
        List<String> command = run.options.peerCommand(run.bootstrap, topics[0], topics[1], "peer" + run.runId);
        try (Collector collector = new Collector(run.bootstrap, List.of(topics[1]))) {
            collector.register(PEER_PHASE, peer);
            long start = System.currentTimeMillis();
            try (ChildJvm process = ChildJvm.command("bench-peer", command)
                    .log(run.workDir.resolve("peer-catchup.log"))
                    .start()) {
                BenchRun.log("peer: pid %d, %s, log %s", process.pid(), command, process.log());
                CpuMeter cpu = run.cpuMeter("peer", process.pid()).start();
                BenchRun.awaitDelivered(peer, 300);
                double rate = BenchRun.drainRate(peer, start);
                run.put(
                        "catch-up: peer, started cold (" + String.join(" ", command) + ")",
                        "%,.0f records/s from "
                                + "start to last (%,.0f/s steady), first delivery %,d ms after the start; %,d of %,d "
                                + "delivered, %d duplicates; %s",
                        rate,
                        peer.steadyRate(),
                        StartupScenario.firstDelivery(peer, start),
                        peer.count(),
                        n,
                        peer.duplicates,
                        Targets.early(peer));
                run.put("catch-up: peer, CPU (from its launch)", "%s", cpu.perRecord(peer.count()));
                run.put(
                        "catch-up: bridge / peer",
                        "%.2f from start to last delivery (%,.0f against %,.0f " + "records/s)",
                        bridgeRate / rate,
                        bridgeRate,
                        rate);
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

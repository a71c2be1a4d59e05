package io.delaybridge.bench;

import java.time.Instant;
import java.util.List;

/**
 * "parked-drain" (formerly "burst"): {@code --parked-records} records are written to the intake, all due at one
 * instant in the future, so the bridge parks every one in Redis; at that instant all are due at once and the pump
 * drains them. The drain rate (between 10 % and 90 % of the deliveries) is printed beside the plain Kafka copy's,
 * measured cold in the same run ({@link CopyDrain}), with the CPU per record of every process (bridge, Redis, broker,
 * this JVM) over the drain, and how many records were delivered out of their intake partition's order.
 */
final class ParkedDrainScenario implements Scenario {

    private static final int COPY_PHASE = 39;
    private static final int BRIDGE_PHASE = 40;
    private static final int WARMUP_PHASE = 41;

    private final BenchRun run;

    ParkedDrainScenario(BenchRun run) {
        this.run = run;
    }

    @Override
    public void run() throws Exception {
        int n = run.options.parkedRecords;
        CopyDrain copy = CopyDrain.cold(run, "parkcopy", n, COPY_PHASE);
        run.put(
                "parked drain: plain Kafka copy of " + n + " records, a fresh JVM",
                "%,.0f records/s steady " + "(%,.0f/s from start to last); %,d of %,d copied",
                copy.steadyRate(),
                copy.startToLast(),
                copy.stats().count(),
                n);
        run.put("parked drain: plain Kafka copy, CPU (from its launch)", "%s", copy.cpu());

        for (boolean exactlyOnce : run.options.exactlyOnce) {
            drain(n, copy, exactlyOnce);
        }
    }

    /**
     * The bridge's drain of {@code n} parked records, with exactly once as given, beside the copy's; first, unmeasured,
     * a warm-up drain of {@code --parked-warmup-records} in the same bridge.
     */
    private void drain(int n, CopyDrain copy, boolean exactlyOnce) throws Exception {
        String scenario = exactlyOnce ? "bursteos" : "burst";
        String mode = exactlyOnce ? " (exactly once)" : "";
        String[] topics = run.createTopics(scenario, 3);
        String prefix = run.keyPrefix(scenario);
        try (Collector collector = new Collector(run.bootstrap, List.of(topics[1]), exactlyOnce);
                BridgeProcess bridge = run.startBridge(scenario, topics, exactlyOnce);
                Load load = new Load(run.bootstrap)) {
            Parking parking = new Parking(collector, load, topics, prefix);
            int warm = run.options.parkedWarmupRecords;
            if (warm > 0) {
                Stats warmup = parking.park("parked drain warm-up", warm, false, WARMUP_PHASE);
                BenchRun.awaitDelivered(warmup, 600);
                run.put(
                        "parked drain" + mode + ": warm-up, " + warm + " records (not measured)",
                        "drained at %,.0f records/s steady; %s",
                        warmup.steadyRate(),
                        warmup.latenessLine());
            }
            bridge.resetPeaks();
            Stats stats = parking.park("parked drain", n, true, BRIDGE_PHASE);
            run.put(
                    "parked drain: intake of " + n + " records (produce + bridge stores them)",
                    "%s stored before the due time (%,.0f records/s from the first send until stored)",
                    parking.stored >= n ? "all" : String.format("only %,d of %,d", parking.stored, n),
                    parking.intakeRate);
            // the meter starts at the due instant: what it measures is the drain alone
            BenchRun.sleepUntil(parking.dueAt);
            CpuMeter cpu = run.cpuMeter(bridge).start();
            BenchRun.awaitDelivered(stats, 600);
            String cpuLine = cpu.perRecord(stats.count());
            // the producers' own averages, over their last 30-60 s: mostly this drain
            double batchBytes = bridge.gauge("delay.send.batch-size-bytes-avg");
            double perRequest = bridge.gauge("delay.send.records-per-request-avg");
            double drained = stats.steadyRate();
            run.put(
                    "parked drain" + mode + ": " + n + " records due at one instant",
                    "drained at %,.0f records/s steady; %s; "
                            + "%s; out of intake order by > 100 ms: %,d; %s, peak heap %d MB",
                    drained,
                    stats.latenessLine(),
                    Targets.early(stats),
                    stats.orderInversions(BenchRun.INTAKE_PARTITIONS, 100),
                    Targets.rss(bridge),
                    bridge.maxHeapMb());
            run.put("parked drain" + mode + ": bridge, CPU", "%s", cpuLine);
            run.put("parked drain" + mode + ": paths", "%s", CatchUpScenario.paths(bridge));
            run.put(
                    "parked drain" + mode + ": sends",
                    "batches of %,.0f B, %,.0f records a produce request (the producers' averages)",
                    batchBytes,
                    perRequest);
            run.put(
                    "parked drain" + mode + ": bridge / plain copy",
                    "%s (steady rates)",
                    Targets.ratio(drained / copy.steadyRate(), Targets.PARKED_RATIO));
        }
    }

    /** Writes parked records to one bridge's intake, all due at one instant, and waits until it stored them. */
    private final class Parking {
        private final Collector collector;
        private final Load load;
        private final String[] topics;
        private final String prefix;
        /** Of the last {@link #park}: the due instant, how many were stored by then, the intake's rate. */
        long dueAt;

        long stored;
        double intakeRate;

        Parking(Collector collector, Load load, String[] topics, String prefix) {
            this.collector = collector;
            this.load = load;
            this.topics = topics;
            this.prefix = prefix;
        }

        /**
         * Parks {@code n} records under {@code phase}, counted by the stats returned (in intake order if {@code order});
         * returns once all are stored or their due instant is near.
         */
        Stats park(String name, int n, boolean order, int phase) throws Exception {
            long first = run.nextSeq(n);
            Stats stats = order ? new Stats(name, first, n).trackingOrder() : new Stats(name, first, n);
            dueAt = System.currentTimeMillis() + 10_000 + n * 1000L / run.options.parkedIntakeRate;
            collector.register(phase, stats);
            long start = System.nanoTime();
            for (int i = 0; i < n; i++) {
                load.send(topics[0], i % BenchRun.INTAKE_PARTITIONS, topics[1], dueAt, first + i, phase);
            }
            load.flush();
            BenchRun.log(
                    "parked drain: %,d records written to the intake in %.1f s, due at %s",
                    n, BenchRun.seconds(start), Instant.ofEpochMilli(dueAt));
            stored = 0;
            while (System.currentTimeMillis() < dueAt - 200) {
                stored = run.pending(prefix, topics[0]);
                if (stored >= n) {
                    break;
                }
                Thread.sleep(200);
            }
            intakeRate = n / BenchRun.seconds(start);
            return stats;
        }
    }
}

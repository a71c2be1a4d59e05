package io.delaybridge.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * "sharing": does one target's backlog make another target late? Two runs on one bridge each, with the baseline jar
 * ({@code --startup-baseline-jar}, e.g. a build of the code before) and then the bridge's, same run:
 * <ul>
 *   <li>capped backlog: a cap of {@value #CAP}/s on one target ({@code pump.rateLimits.targets}), {@value #CAPPED}
 *       records for it due at one instant T, and a record for a second, uncapped target every 20 ms due from T+200 ms to
 *       T+8 s: the uncapped target's lateness, the capped one's rate, and how often capped messages went back to
 *       Redis;</li>
 *   <li>burst: {@value #BULK} records for one target due at one instant T, and a record for a second target every
 *       20 ms due from T+200 ms to T+8 s: the second target's lateness while the burst drains.</li>
 * </ul>
 */
final class SharingScenario implements Scenario {

    private static final int CAP = 100;
    private static final int CAPPED = 5_000;
    private static final int BULK = 200_000;
    private static final int QUIET_EVERY_MS = 20;
    private static final int QUIET_FROM_MS = 200;
    private static final int QUIET_TO_MS = 8_000;
    /** Four phases a jar: capped, free, bulk, quiet (a phase is one byte of the record). */
    private static final int PHASE = 100;

    private final BenchRun run;

    SharingScenario(BenchRun run) {
        this.run = run;
    }

    @Override
    public void run() throws Exception {
        int phase = PHASE;
        if (run.options.startupBaselineJar != null) {
            List<String> jvm = StartupScenario.baselineJvm(run.options);
            String label = "baseline jar " + run.options.startupBaselineJar.getFileName();
            backlog(label, "sharebase", run.options.startupBaselineJar, jvm, phase, CAPPED, CAP);
            backlog(label, "burstbase", run.options.startupBaselineJar, jvm, phase + 2, BULK, 0);
        }
        phase += 4;
        backlog("this bridge", "share", run.options.bridgeJar, run.shippedJvm(), phase, CAPPED, CAP);
        backlog("this bridge", "burst", run.options.bridgeJar, run.shippedJvm(), phase + 2, BULK, 0);
    }

    /**
     * {@code records} due at one instant for one target (capped at {@code cap} a second, 0: uncapped), and a record
     * for another target every 20 ms due from that instant on: how late the other target's records are.
     */
    private void backlog(String label, String name, Path jar, List<String> jvm, int phase, int records, int cap)
            throws Exception {
        String[] topics = run.createTopics(name, 3);
        String first = topics[1];
        String other = run.createTopics(name + "other", 3)[1];
        List<String> options = new ArrayList<>(jvm);
        if (cap > 0) {
            options.add("-Ddw.pump.rateLimits.targets." + first + "=" + cap);
        }
        try (Collector collector = new Collector(run.bootstrap, List.of(first, other), false);
                Load load = new Load(run.bootstrap);
                BridgeProcess bridge = run.startBridge(name, topics, jar, options)) {
            long dueAt = System.currentTimeMillis() + 20_000 + records / 10; // time to write them all first
            Stats backlog = new Stats(name + " backlog " + label, run.nextSeq(records), records);
            Stats others = quiet(name + " other " + label, collector, phase + 1);
            collector.register(phase, backlog);
            for (int i = 0; i < records; i++) {
                load.send(topics[0], i % BenchRun.INTAKE_PARTITIONS, first, dueAt, backlog.seqBase() + i, phase);
            }
            sendQuiet(load, topics[0], other, dueAt, others, phase + 1);
            BenchRun.sleepUntil(dueAt + QUIET_TO_MS);
            BenchRun.awaitDelivered(others, 30);
            BenchRun.awaitDelivered(backlog, 120);
            String what = cap > 0
                    ? "capped backlog (" + label + "): " + records + " due at once for a target capped at " + cap + "/s"
                    : "burst (" + label + "): " + records + " due at once for one target";
            run.put(
                    "sharing, " + what + "; another target's record every " + QUIET_EVERY_MS + " ms",
                    "the other target: %s | the backlog: %,.1f records/s (10-90 %%), %s; hand-backs to Redis %,d",
                    others.latenessLine(),
                    backlog.steadyRate(),
                    backlog.latenessLine(),
                    cap > 0 ? bridge.meterCount("delay.target.handed-back." + first) : 0);
        }
    }

    private Stats quiet(String name, Collector collector, int phase) {
        int count = (QUIET_TO_MS - QUIET_FROM_MS) / QUIET_EVERY_MS;
        Stats stats = new Stats(name, run.nextSeq(count), count);
        collector.register(phase, stats);
        return stats;
    }

    /** The second target's records, written ahead like the rest: due every 20 ms from T+200 ms. */
    private static void sendQuiet(Load load, String intake, String target, long dueAt, Stats stats, int phase) {
        for (int i = 0; i < stats.expected; i++) {
            load.send(
                    intake,
                    i % BenchRun.INTAKE_PARTITIONS,
                    target,
                    dueAt + QUIET_FROM_MS + (long) i * QUIET_EVERY_MS,
                    stats.seqBase() + i,
                    phase);
        }
        load.flush();
    }
}

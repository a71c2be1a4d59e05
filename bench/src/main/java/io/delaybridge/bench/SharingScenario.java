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
            capped(label, "sharebase", run.options.startupBaselineJar, jvm, phase);
            burst(label, "burstbase", run.options.startupBaselineJar, jvm, phase + 2);
        }
        phase += 4;
        capped("this bridge", "share", run.options.bridgeJar, run.shippedJvm(), phase);
        burst("this bridge", "burst", run.options.bridgeJar, run.shippedJvm(), phase + 2);
    }

    private void capped(String label, String name, Path jar, List<String> jvm, int phase) throws Exception {
        String[] topics = run.createTopics(name, 3);
        String capped = topics[1];
        String free = run.createTopics(name + "free", 3)[1];
        List<String> withCap = new ArrayList<>(jvm);
        withCap.add("-Ddw.pump.rateLimits.targets." + capped + "=" + CAP);
        try (Collector collector = new Collector(run.bootstrap, List.of(capped, free), false);
                Load load = new Load(run.bootstrap);
                BridgeProcess bridge = run.startBridge(name, topics, jar, withCap)) {
            long dueAt = System.currentTimeMillis() + 20_000;
            Stats cappedStats = new Stats("sharing capped " + label, run.nextSeq(CAPPED), CAPPED);
            Stats freeStats = quiet("sharing free " + label, collector, phase + 1);
            collector.register(phase, cappedStats);
            for (int i = 0; i < CAPPED; i++) {
                load.send(topics[0], i % BenchRun.INTAKE_PARTITIONS, capped, dueAt, cappedStats.seqBase() + i, phase);
            }
            sendQuiet(load, topics[0], free, dueAt, freeStats, phase + 1);
            BenchRun.sleepUntil(dueAt + QUIET_TO_MS);
            BenchRun.awaitDelivered(freeStats, 30);
            BenchRun.awaitDelivered(cappedStats, 120);
            run.put(
                    "sharing, capped backlog (" + label + "): " + CAPPED + " due at once for a target capped at " + CAP
                            + "/s; another target's record every " + QUIET_EVERY_MS + " ms",
                    "the other target: %s | the capped target: %,.1f records/s (10-90 %%), %s; "
                            + "hand-backs to Redis %,d",
                    freeStats.latenessLine(),
                    cappedStats.steadyRate(),
                    cappedStats.latenessLine(),
                    bridge.meterCount("delay.target.handed-back." + capped));
        }
    }

    private void burst(String label, String name, Path jar, List<String> jvm, int phase) throws Exception {
        String[] topics = run.createTopics(name, 3);
        String bulk = topics[1];
        String quiet = run.createTopics(name + "quiet", 3)[1];
        try (Collector collector = new Collector(run.bootstrap, List.of(bulk, quiet), false);
                Load load = new Load(run.bootstrap);
                BridgeProcess bridge = run.startBridge(name, topics, jar, jvm)) {
            long dueAt = System.currentTimeMillis() + 40_000;
            Stats bulkStats = new Stats("sharing bulk " + label, run.nextSeq(BULK), BULK);
            Stats quietStats = quiet("sharing quiet " + label, collector, phase + 1);
            collector.register(phase, bulkStats);
            for (int i = 0; i < BULK; i++) {
                load.send(topics[0], i % BenchRun.INTAKE_PARTITIONS, bulk, dueAt, bulkStats.seqBase() + i, phase);
            }
            sendQuiet(load, topics[0], quiet, dueAt, quietStats, phase + 1);
            BenchRun.sleepUntil(dueAt + QUIET_TO_MS);
            BenchRun.awaitDelivered(quietStats, 30);
            BenchRun.awaitDelivered(bulkStats, 60);
            run.put(
                    "sharing, burst (" + label + "): " + BULK + " due at once for one target; another target's record"
                            + " every " + QUIET_EVERY_MS + " ms",
                    "the other target: %s | the burst: %,.0f records/s (10-90 %%), %s",
                    quietStats.latenessLine(),
                    bulkStats.steadyRate(),
                    bulkStats.latenessLine());
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

package io.delaybridge.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * "restart", what a crash and a deploy cost: one bridge as shipped (its JVM options and its CDS archive) while
 * a record falls due every 100 ms (each sent 300 ms before it is due). Two parts of 15 s each: in the first the bridge
 * is killed with SIGKILL 4 s in and started again at once; in the second it is stopped with SIGTERM 4 s in (a deploy)
 * and started again at once; {@code --restarts} times over. Reported per kind of event: the median and the worst, over
 * the events, of its worst record's lateness (the target applies to the median), none early, none lost.
 * With {@code --startup-baseline-jar} (and {@code --startup-baseline-cds}) that jar first, the same way, for a
 * before-and-after in one run. With {@code --exactly-once off,on} this bridge once per mode, the records read
 * {@code read_committed} when on.
 */
final class RestartScenario implements Scenario {

    static final long KILL_TARGET_MS = 3_000;
    static final long DEPLOY_TARGET_MS = 2_000;
    private static final int PER_SECOND = 10;
    private static final int PART_SECONDS = 15;
    private static final long LEAD_MS = 300;
    private static final long EVENT_AT_MS = 4_000;

    private final BenchRun run;

    RestartScenario(BenchRun run) {
        this.run = run;
    }

    @Override
    public void run() throws Exception {
        if (run.options.startupBaselineJar != null) {
            Path archive = run.options.startupBaselineCds;
            measure(
                    "baseline jar " + run.options.startupBaselineJar.getFileName()
                            + (archive == null ? ", no CDS archive" : ", with its CDS archive"),
                    "restartbase",
                    run.options.startupBaselineJar,
                    StartupScenario.baselineJvm(run.options),
                    false);
        }
        boolean cds = Files.isRegularFile(run.options.bridgeCds);
        for (boolean exactlyOnce : run.options.exactlyOnce) {
            measure(
                    (cds ? "as shipped: its CDS archive and JVM options" : "its JVM options, no CDS archive")
                            + (exactlyOnce ? ", exactly once" : ""),
                    exactlyOnce ? "restarteos" : "restart",
                    run.options.bridgeJar,
                    run.shippedJvm(),
                    exactlyOnce);
        }
    }

    /**
     * Both parts, {@code --restarts} times, for one jar; {@code name} names its topics, group and key prefix. One bridge
     * runs throughout, each kill or stop followed by a start.
     */
    private void measure(String label, String name, Path jar, List<String> jvm, boolean exactlyOnce) throws Exception {
        String[] topics = run.createTopics(name, 3);
        int n = PER_SECOND * PART_SECONDS;
        int rounds = run.options.restarts;
        List<Stats> killed = new ArrayList<>();
        List<Stats> deployed = new ArrayList<>();
        for (int round = 0; round < rounds; round++) {
            killed.add(new Stats("restart after kill -9", run.nextSeq(0), n));
            run.nextSeq(n);
            deployed.add(new Stats("restart after SIGTERM", run.nextSeq(0), n));
            run.nextSeq(n);
        }
        try (Collector collector = new Collector(run.bootstrap, List.of(topics[1]), exactlyOnce);
                Load load = new Load(run.bootstrap)) {
            for (int round = 0; round < rounds; round++) {
                collector.register(1 + 2 * round, killed.get(round));
                collector.register(2 + 2 * round, deployed.get(round));
            }
            List<BridgeProcess> bridges = new ArrayList<>();
            bridges.add(run.startBridge(name, topics, jar, jvm, exactlyOnce));
            try {
                for (int round = 0; round < rounds; round++) {
                    part(load, topics, killed.get(round), 1 + 2 * round, () -> {
                        bridges.get(bridges.size() - 1).kill();
                        bridges.add(run.startBridge(name, topics, jar, jvm, exactlyOnce));
                    });
                    part(load, topics, deployed.get(round), 2 + 2 * round, () -> {
                        bridges.get(bridges.size() - 1).close();
                        bridges.add(run.startBridge(name, topics, jar, jvm, exactlyOnce));
                    });
                    BenchRun.log(
                            "restart round %d/%d (%s): worst record %,d ms late after kill -9, %,d ms after SIGTERM",
                            round + 1, rounds, label, killed.get(round).maxLateness, deployed.get(round).maxLateness);
                }
                for (int round = 0; round < rounds; round++) {
                    BenchRun.awaitDelivered(killed.get(round), 60);
                    BenchRun.awaitDelivered(deployed.get(round), 60);
                }
            } finally {
                for (BridgeProcess bridge : bridges) {
                    bridge.close();
                }
            }
        }
        report("kill -9 of the only bridge, restarted at once (" + label + ")", killed, KILL_TARGET_MS);
        report(
                "SIGTERM of the only bridge (a deploy), started again at once (" + label + ")",
                deployed,
                DEPLOY_TARGET_MS);
    }

    /** A step that may throw. */
    private interface Event {
        void run() throws Exception;
    }

    /** Sends a part's records, one due every 100 ms, and runs {@code event} 4 s in, on another thread. */
    private void part(Load load, String[] topics, Stats stats, int phase, Event event) throws Exception {
        long start = System.currentTimeMillis();
        Thread trigger = new Thread(
                () -> {
                    BenchRun.sleepUntil(start + EVENT_AT_MS);
                    try {
                        event.run();
                    } catch (Exception e) {
                        BenchRun.log("restart: %s", e);
                    }
                },
                "bench-restart-event");
        trigger.start();
        long first = stats.seqBase();
        for (int i = 0; i < stats.expected; i++) {
            long sendAt = start + i * 1000L / PER_SECOND;
            BenchRun.sleepUntil(sendAt);
            load.send(topics[0], null, topics[1], sendAt + LEAD_MS, first + i, phase);
        }
        load.flush();
        trigger.join();
    }

    /** Per event its worst record's lateness; the target applies to their median, the worst is shown beside it. */
    private void report(String what, List<Stats> events, long target) {
        List<Long> worst = events.stream().map(e -> e.maxLateness).toList();
        long delivered = events.stream().mapToLong(Stats::count).sum();
        long expected = events.stream().mapToLong(e -> e.expected).sum();
        long early = events.stream().mapToLong(e -> e.early).sum();
        long duplicates = events.stream().mapToLong(e -> e.duplicates).sum();
        run.put(
                "restart: " + what,
                "worst record late, median of %d events %s, worst %,d ms (%s); %,d of %,d delivered, early %s, "
                        + "%d duplicates",
                events.size(),
                Targets.atMost(StartupScenario.median(worst), target, "ms"),
                StartupScenario.worst(worst),
                worst,
                delivered,
                expected,
                Targets.atMost(early, 0, "records"),
                duplicates);
    }
}

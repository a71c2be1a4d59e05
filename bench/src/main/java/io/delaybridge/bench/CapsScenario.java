package io.delaybridge.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * "caps": a delivery cap of {@value #CAP}/s on one target ({@code DELAY_RATE_LIMIT}), two bridge instances in one group,
 * {@value #RECORDS} records all due at one instant: the delivered rate with the cap for the service
 * ({@code DELAY_RATE_LIMIT_SCOPE=service}, the default) and per instance ({@code instance}), side by side in one run.
 */
final class CapsScenario implements Scenario {

    private static final int CAP = 100;
    private static final int RECORDS = 3_000;
    private static final int INSTANCES = 2;
    /** Two phases, one per scope; a phase is one byte of the record (0-255). */
    private static final int PHASE = 126;

    private final BenchRun run;

    CapsScenario(BenchRun run) {
        this.run = run;
    }

    @Override
    public void run() throws Exception {
        int phase = PHASE;
        for (String scope : List.of("service", "instance")) {
            drain(scope, phase++);
        }
    }

    private void drain(String scope, int phase) throws Exception {
        String name = "caps" + scope;
        String[] topics = run.createTopics(name, 3);
        List<BridgeProcess> bridges = new ArrayList<>();
        try (Collector collector = new Collector(run.bootstrap, List.of(topics[1]), false);
                Load load = new Load(run.bootstrap)) {
            for (int i = 1; i <= INSTANCES; i++) {
                bridges.add(run.startBridge(
                        name,
                        topics,
                        Map.of(
                                "DELAY_RATE_LIMIT",
                                Integer.toString(CAP),
                                "DELAY_RATE_LIMIT_SCOPE",
                                scope,
                                "DELAY_INSTANCE_ID",
                                name + "-" + i + "-" + run.keyPrefix(name))));
            }
            // the second instance's join has settled well before: every shard is pumped by one of the two
            long dueAt = System.currentTimeMillis() + 20_000;
            long first = run.nextSeq(RECORDS);
            Stats stats = new Stats("caps " + scope, first, RECORDS);
            collector.register(phase, stats);
            for (int i = 0; i < RECORDS; i++) {
                load.send(topics[0], i % BenchRun.INTAKE_PARTITIONS, topics[1], dueAt, first + i, phase);
            }
            load.flush();
            BenchRun.sleepUntil(dueAt);
            BenchRun.awaitDelivered(stats, 120);
            long[] each = new long[INSTANCES];
            for (int i = 0; i < INSTANCES; i++) {
                each[i] = bridges.get(i).meterCount("delay.target.delivered." + topics[1]);
            }
            run.put(
                    "caps: " + RECORDS + " records due at once, cap " + CAP + "/s, " + INSTANCES + " instances, scope: "
                            + scope,
                    "%,.1f records/s delivered (steady, 10-90 %%); %s; by instance %d + %d",
                    stats.steadyRate(),
                    stats.latenessLine(),
                    each[0],
                    each[1]);
        } finally {
            for (BridgeProcess bridge : bridges) {
                bridge.close();
            }
        }
    }
}

package io.delaybridge.bench;

import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * "backlog": {@code --backlog} records due in 6 hours are stored hot (the far tier off: {@code intake.hotWindow}
 * off): Redis {@code used_memory} per pending record (after any AOF rewrite Redis started by itself), then lateness of
 * {@code --steady-rate} due on top of them.
 */
final class BacklogScenario implements Scenario {

    private static final int PHASE = 50;

    private final BenchRun run;

    BacklogScenario(BenchRun run) {
        this.run = run;
    }

    @Override
    public void run() throws Exception {
        int n = run.options.backlog;
        String[] topics = run.createTopics("backlog", 3);
        String prefix = run.keyPrefix("backlog");
        try (Collector collector = new Collector(run.bootstrap, List.of(topics[1]));
                // records due in 6 hours would wait in the far tier (intake.hotWindow, 10m as shipped): this measures
                // the hot store
                BridgeProcess bridge = run.startBridge("backlog", topics, FarRecords.window("off"));
                Load load = new Load(run.bootstrap)) {
            bridge.resetPeaks();
            long usedBefore = run.usedMemory();
            long dueAt = System.currentTimeMillis() + TimeUnit.HOURS.toMillis(6);
            long start = System.nanoTime();
            long first = run.nextSeq(n);
            for (int i = 0; i < n; i++) {
                load.send(topics[0], null, topics[1], dueAt + (i % 1000), first + i, PHASE);
            }
            load.flush();
            long pending = 0;
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(30);
            while (System.nanoTime() < deadline && (pending = run.pending(prefix, topics[0])) < n) {
                Thread.sleep(500);
            }
            double intakeRate = n / BenchRun.seconds(start);
            // An AOF rewrite (Redis starts one each time the file doubles) holds a buffer of the writes made meanwhile
            // in used_memory, and its child takes a core: measure memory, and run the steady load, after it.
            if (!RedisInfo.awaitNoAofRewrite(run.redis(), 15, TimeUnit.MINUTES)) {
                BenchRun.log("  an AOF rewrite still runs after 15 minutes; measuring anyway");
            }
            long used = run.usedMemory();
            run.put(
                    "backlog: " + n + " pending records",
                    "stored at %,.0f records/s; Redis used_memory +%,d B = %,d "
                            + "B per pending record (200-byte values; %,d pending); %s, peak heap %d MB",
                    intakeRate,
                    used - usedBefore,
                    (used - usedBefore) / Math.max(1, pending),
                    pending,
                    Targets.rss(bridge),
                    bridge.maxHeapMb());
            bridge.resetPeaks();
            int rate = run.options.steadyRate;
            // the bridge just stored the backlog: compiled by now
            SteadyRun step = SteadyRun.measure(
                    run,
                    collector,
                    topics,
                    rate,
                    1_000,
                    5_000,
                    20,
                    run.options.stepWarmupSeconds,
                    PHASE + 1,
                    run.cpuMeter(bridge),
                    () -> {});
            String name = "backlog: " + rate + " records/s due on top of " + n + " pending (delays 1-5 s, 20 s)";
            run.put(name, "%s; %s", step.stats().latenessLine(), Targets.rss(bridge));
            run.put(name + ", CPU", "%s", step.cpu());
        }
    }
}

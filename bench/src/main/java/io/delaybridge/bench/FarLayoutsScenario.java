package io.delaybridge.bench;

import java.util.Map;

/**
 * "far-layouts": Redis memory per record in the far tier as the store writes it ({@link FarTierMemory}), and per index
 * entry for the candidate layouts ({@link FarLayouts}; not with {@code --far-tier-only}), beside a pending record of the
 * store's hot layout measured in the same run on the same Redis ({@link StoreLayouts}, 200-byte values).
 */
final class FarLayoutsScenario implements Scenario {

    private final BenchRun run;

    FarLayoutsScenario(BenchRun run) {
        this.run = run;
    }

    @Override
    public void run() throws Exception {
        int hot = run.options.layoutRecords;
        double hotPerRecord =
                new StoreLayouts(run.redisUri(), run.redis(), "farhot" + run.runId).measureStore(hot, 200);
        run.put(
                "far-layouts: baseline, hot store (RedisDelayStore.write, 200 B values)",
                "%,.0f B per pending record (%,d records)",
                hotPerRecord,
                hot);
        int n = run.options.far.records;
        FarTierMemory tier = new FarTierMemory(run.redisUri(), run.redis(), "fartier" + run.runId);
        for (boolean explicit : new boolean[] {false, true}) {
            run.put(
                    "far-layouts: far tier, the store's own writes, "
                            + (explicit ? "explicit 16-char ids" : "default ids"),
                    "%,.1f B per far record (%,d records over %d shards, due over %d days)",
                    tier.measure(n, explicit),
                    n,
                    FarTierMemory.SHARDS,
                    FarTierMemory.SPREAD_DAYS);
        }
        if (run.options.far.tierOnly) {
            return;
        }
        Map<String, Double> perEntry =
                new FarLayouts(run.redisUri(), run.redis(), "far" + run.runId).measure(n, run.options.far.chosenOnly);
        perEntry.forEach((layout, bytes) -> run.put(
                "far-layouts: " + layout,
                "%,.1f B per far entry (%,d entries over %d shards, due over %d days)",
                bytes,
                n,
                FarLayouts.SHARDS,
                FarLayouts.SPREAD_DAYS));
    }
}

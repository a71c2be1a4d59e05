package io.delaybridge.bench;

import java.util.Map;

/** "layouts": Redis memory per pending message, the store's layout against compact candidates ({@link StoreLayouts}). */
final class LayoutsScenario implements Scenario {

    private final BenchRun run;

    LayoutsScenario(BenchRun run) {
        this.run = run;
    }

    @Override
    public void run() throws Exception {
        int n = run.options.layoutRecords;
        // stored values around a benchmark record's (envelope + origin token: ~240 B): the compact layouts' cost
        // moves with the allocator's size class that a bucket of 128 falls in
        for (int valueBytes : run.options.layoutValueBytes) {
            Map<String, Double> perMessage = new StoreLayouts(
                            run.redisUri(), run.redis(), "lay" + run.runId + "v" + valueBytes)
                    .measure(n, valueBytes);
            perMessage.forEach((layout, bytes) -> run.put(
                    "layouts: " + valueBytes + " B values, " + layout,
                    "%,.0f B per message (overhead %,.0f B; %,d messages)",
                    bytes,
                    bytes - valueBytes,
                    n));
        }
    }
}

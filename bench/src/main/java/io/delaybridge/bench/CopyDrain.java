package io.delaybridge.bench;

import java.util.List;

/**
 * The baseline of catch-up and parked drain: the plain Kafka copy ({@link PlainCopy}, in this JVM) started cold on a
 * topic of its own holding {@code n} preloaded records, all due, in the same run as the bridge it is compared with.
 *
 * @param stats what the collector saw of the copy
 * @param startToLast records per second from the copy's start to its last delivery (start-up included)
 * @param cpu CPU per record of every process over the drain ({@link CpuMeter#perRecord})
 */
record CopyDrain(Stats stats, double startToLast, String cpu) {

    static CopyDrain measure(BenchRun run, String name, int n, int phase) throws Exception {
        String[] topics = run.createTopics(name, 3);
        Stats stats = run.preloaded(name + " plain copy", topics, n, phase);
        try (Collector collector = new Collector(run.bootstrap, List.of(topics[1]))) {
            collector.register(phase, stats);
            CpuMeter cpu = run.cpuMeter(0).start();
            long start = System.currentTimeMillis();
            try (PlainCopy copy = new PlainCopy(run.bootstrap, topics[0], name + run.runId)) {
                BenchRun.awaitDelivered(stats, 300);
            }
            return new CopyDrain(stats, BenchRun.drainRate(stats, start), cpu.perRecord(stats.count()));
        }
    }

    /** Records per second between 10 % and 90 % of the deliveries. */
    double steadyRate() {
        return stats.steadyRate();
    }
}

package io.delaybridge.bench;

import io.delaybridge.testkit.ChildJvm;
import java.util.List;

/**
 * The baseline of catch-up and parked drain: the plain Kafka copy ({@link PlainCopy}) on a topic of its own holding
 * {@code n} preloaded records, all due, in the same run as the bridge it is compared with.
 *
 * <p>{@link #cold} runs the copy as a fresh child JVM with the bridge's JVM options (start-up and JIT included, as for
 * the bridge): the baseline the targets are judged against. {@link #warm} runs it on a thread of the benchmark's own
 * JVM, whose Kafka clients are compiled already (it produced the preloaded records): the figure the runs before the
 * cold copy compared with.
 *
 * @param stats what the collector saw of the copy
 * @param startToLast records per second from the copy's start to its last delivery (start-up included)
 * @param cpu CPU per record of every process over the drain ({@link CpuMeter#perRecord})
 */
record CopyDrain(Stats stats, double startToLast, String cpu) {

    /** The copy as a child JVM of its own, started cold. */
    static CopyDrain cold(BenchRun run, String name, int n, int phase) throws Exception {
        String[] topics = run.createTopics(name, 3);
        Stats stats = run.preloaded(name + " plain copy", topics, n, phase);
        try (Collector collector = new Collector(run.bootstrap, List.of(topics[1]))) {
            collector.register(phase, stats);
            long start = System.currentTimeMillis();
            try (ChildJvm copy = startCold(run, topics[0], name)) {
                CpuMeter cpu = run.cpuMeter("copy JVM", copy.pid()).start();
                BenchRun.awaitDelivered(stats, 300);
                return new CopyDrain(stats, BenchRun.drainRate(stats, start), cpu.perRecord(stats.count()));
            }
        }
    }

    /**
     * Starts the copy of {@code intake} as a child JVM with the bridge's JVM options; its group is named after
     * {@code name} and the run, so a second start with the same name goes on where the first stopped.
     */
    static ChildJvm startCold(BenchRun run, String intake, String name) {
        return ChildJvm.mainClass("bench-plain-copy", PlainCopy.class.getName(), System.getProperty("java.class.path"))
                .jvmOptions(run.options.bridgeJvm)
                .args(run.bootstrap, intake, name + run.runId)
                .log(run.workDir.resolve("copy-" + name + ".log"))
                .start();
    }

    /** The copy on a thread of the benchmark's JVM, its Kafka clients already compiled. */
    static CopyDrain warm(BenchRun run, String name, int n, int phase) throws Exception {
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

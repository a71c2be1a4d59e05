package io.delaybridge.bench;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.StringJoiner;
import java.util.function.LongSupplier;

/**
 * CPU time that each process of the run (the bridge, Redis, the broker, this JVM) spent between {@link #start()} and
 * {@link #perRecord(long)}, as microseconds per record: where the machine's two cores went. Reads each process'
 * total CPU time from the OS ({@link ProcessHandle.Info#totalCpuDuration()}, {@code /proc/<pid>/stat} on Linux);
 * children of a process (Redis' AOF rewrite) are not counted. A JVM's figure names in brackets the part its JIT
 * compiler threads used ({@link JitCpu}), where it is known and not zero: a figure with much JIT in it was measured
 * before the JVM was warm. Where {@code /proc/stat} exists the line ends with how
 * the machine's cores spent the same time ({@link MachineCpu}). Counters ({@link #counter}) are reported as rates over
 * the same time.
 */
final class CpuMeter {

    private final Map<String, Long> pids = new LinkedHashMap<>();
    private final Map<String, Long> startNanos = new LinkedHashMap<>();
    private final Map<String, Long> jitAtStart = new LinkedHashMap<>();
    private Optional<MachineCpu> machineAtStart = Optional.empty();
    private final Map<String, LongSupplier> counters = new LinkedHashMap<>();
    private final Map<String, Long> countsAtStart = new LinkedHashMap<>();
    private long startedAtNanos;

    CpuMeter process(String name, long pid) {
        if (pid > 0) {
            pids.put(name, pid);
        }
        return this;
    }

    /** A count that grows (e.g. a meter of the bridge), reported per second; a negative reading means unknown. */
    CpuMeter counter(String name, LongSupplier count) {
        counters.put(name, count);
        return this;
    }

    CpuMeter start() {
        pids.forEach((name, pid) -> {
            startNanos.put(name, cpuNanos(pid));
            jitAtStart.put(name, JitCpu.nanos(pid));
        });
        counters.forEach((name, count) -> countsAtStart.put(name, count.getAsLong()));
        machineAtStart = MachineCpu.now();
        startedAtNanos = System.nanoTime();
        return this;
    }

    /**
     * "bridge 24.1 (JIT 3.2), redis 12.0, ... us of CPU per record (all 54.3); machine: busy 83 %, ..." over {@code records}
     * since {@link #start()}.
     */
    String perRecord(long records) {
        StringJoiner line = new StringJoiner(", ");
        double total = 0;
        for (Map.Entry<String, Long> process : pids.entrySet()) {
            long used = cpuNanos(process.getValue()) - startNanos.getOrDefault(process.getKey(), 0L);
            double micros = used / 1_000.0 / Math.max(1, records);
            total += micros;
            long jitAfter = JitCpu.nanos(process.getValue());
            long jitBefore = jitAtStart.getOrDefault(process.getKey(), -1L);
            String jit = jitBefore >= 0 && jitAfter > jitBefore
                    ? String.format(" (JIT %.1f)", (jitAfter - jitBefore) / 1_000.0 / Math.max(1, records))
                    : "";
            line.add(String.format("%s %.1f%s", process.getKey(), micros, jit));
        }
        String machine = machineAtStart
                .flatMap(start -> MachineCpu.now().map(end -> "; " + end.sharesSince(start)))
                .orElse("");
        return String.format("%s us of CPU per record (all %.1f)%s%s", line, total, machine, rates());
    }

    /** "; a second: intake polls stored 250.1, intake commits 10.0" since {@link #start()}; empty without counters. */
    private String rates() {
        double seconds = (System.nanoTime() - startedAtNanos) / 1e9;
        StringJoiner line = new StringJoiner(", ", "; a second: ", "").setEmptyValue("");
        counters.forEach((name, count) -> {
            long now = count.getAsLong();
            long then = countsAtStart.getOrDefault(name, -1L);
            if (now >= 0 && then >= 0 && seconds > 0) {
                line.add(String.format("%s %.1f", name, (now - then) / seconds));
            }
        });
        return line.toString();
    }

    private static long cpuNanos(long pid) {
        return ProcessHandle.of(pid)
                .flatMap(handle -> handle.info().totalCpuDuration())
                .map(Duration::toNanos)
                .orElse(0L);
    }
}

package io.delaybridge.bench;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.StringJoiner;

/**
 * CPU time that each process of the run (the bridge, Redis, the broker, this JVM) spent between {@link #start()} and
 * {@link #perRecord(long)}, as microseconds per record: where the machine's two cores went. Reads each process'
 * total CPU time from the OS ({@link ProcessHandle.Info#totalCpuDuration()}, {@code /proc/<pid>/stat} on Linux);
 * children of a process (Redis' AOF rewrite) are not counted. Where {@code /proc/stat} exists the line ends with how
 * the machine's cores spent the same time ({@link MachineCpu}).
 */
final class CpuMeter {

    private final Map<String, Long> pids = new LinkedHashMap<>();
    private final Map<String, Long> startNanos = new LinkedHashMap<>();
    private Optional<MachineCpu> machineAtStart = Optional.empty();

    CpuMeter process(String name, long pid) {
        if (pid > 0) {
            pids.put(name, pid);
        }
        return this;
    }

    CpuMeter start() {
        pids.forEach((name, pid) -> startNanos.put(name, cpuNanos(pid)));
        machineAtStart = MachineCpu.now();
        return this;
    }

    /**
     * "bridge 24.1, redis 12.0, ... us of CPU per record (all 54.3); machine: busy 83 %, ..." over {@code records}
     * since {@link #start()}.
     */
    String perRecord(long records) {
        StringJoiner line = new StringJoiner(", ");
        double total = 0;
        for (Map.Entry<String, Long> process : pids.entrySet()) {
            long used = cpuNanos(process.getValue()) - startNanos.getOrDefault(process.getKey(), 0L);
            double micros = used / 1_000.0 / Math.max(1, records);
            total += micros;
            line.add(String.format("%s %.1f", process.getKey(), micros));
        }
        String machine = machineAtStart.flatMap(start -> MachineCpu.now().map(end -> "; " + end.sharesSince(start)))
                .orElse("");
        return String.format("%s us of CPU per record (all %.1f)%s", line, total, machine);
    }

    private static long cpuNanos(long pid) {
        return ProcessHandle.of(pid).flatMap(handle -> handle.info().totalCpuDuration())
                .map(Duration::toNanos).orElse(0L);
    }
}

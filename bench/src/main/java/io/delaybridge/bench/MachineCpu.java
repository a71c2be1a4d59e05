package io.delaybridge.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * How the machine's cores spent a measured window: busy (user, nice, system, interrupts), idle, waiting for the disk
 * (iowait: Redis' fsync with {@code appendfsync always} shows here) and stolen by the hypervisor (steal: time this
 * virtual machine was ready to run and did not). Read from the first line of {@code /proc/stat}; empty where there
 * is none.
 *
 * <p>Why: records/s on a shared 2-core machine move by +-10 % between runs of the same build. This line says whether a
 * window was short of CPU (busy near 100 %), of CPU the host took (steal), or of work (idle: the pipeline waited).
 */
record MachineCpu(long busy, long idle, long iowait, long steal) {

    private static final Path PROC_STAT = Path.of("/proc/stat");

    /** The counters now, in clock ticks since boot; empty where {@code /proc/stat} cannot be read. */
    static Optional<MachineCpu> now() {
        try {
            return Optional.of(parse(Files.readAllLines(PROC_STAT).get(0)));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** The aggregate line: {@code cpu user nice system idle iowait irq softirq steal ...}. */
    static MachineCpu parse(String line) {
        String[] f = line.trim().split("\\s+");
        if (!f[0].equals("cpu") || f.length < 9) {
            throw new IllegalArgumentException("not the aggregate cpu line of /proc/stat: " + line);
        }
        long user = Long.parseLong(f[1]);
        long nice = Long.parseLong(f[2]);
        long system = Long.parseLong(f[3]);
        long irq = Long.parseLong(f[6]);
        long softirq = Long.parseLong(f[7]);
        return new MachineCpu(
                user + nice + system + irq + softirq, Long.parseLong(f[4]), Long.parseLong(f[5]), Long.parseLong(f[8]));
    }

    /** "machine: busy 83 %, idle 8 %, iowait 4 %, steal 8 %" of all cores between {@code earlier} and this. */
    String sharesSince(MachineCpu earlier) {
        long b = busy - earlier.busy;
        long i = idle - earlier.idle;
        long w = iowait - earlier.iowait;
        long s = steal - earlier.steal;
        double all = Math.max(1, b + i + w + s);
        return String.format(
                "machine: busy %.0f %%, idle %.0f %%, iowait %.0f %%, steal %.0f %%",
                100 * b / all, 100 * i / all, 100 * w / all, 100 * s / all);
    }
}

package io.delaybridge.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * CPU time a JVM's just-in-time compiler threads spent ({@code C1 CompilerThre…}, {@code C2 CompilerThre…} as
 * {@code /proc/<pid>/task/<tid>/stat} names them), so that a figure measured while the JVM was still compiling says so:
 * on two cores a drain shortly after start-up shares them with the compiler. Compiler threads that ended (the JVM
 * starts and stops some as its queue grows and shrinks) are not counted: a lower bound. Linux only; elsewhere unknown.
 */
final class JitCpu {

    /** Clock ticks a second of {@code /proc}'s times (USER_HZ, 100 on Linux). */
    private static final long TICKS_PER_SECOND = 100;

    private JitCpu() {}

    /** Nanoseconds of CPU the compiler threads of process {@code pid} used so far; -1 if unknown. */
    static long nanos(long pid) {
        Path tasks = Path.of("/proc", Long.toString(pid), "task");
        if (!Files.isDirectory(tasks)) {
            return -1;
        }
        List<Path> threads;
        try (Stream<Path> list = Files.list(tasks)) {
            threads = list.toList();
        } catch (IOException | UncheckedIOException e) {
            return -1;
        }
        long ticks = 0;
        for (Path thread : threads) {
            try {
                ticks += compilerTicks(Files.readString(thread.resolve("stat")));
            } catch (IOException | UncheckedIOException e) {
                // the thread ended meanwhile: its time is gone with it
            }
        }
        return ticks * (1_000_000_000L / TICKS_PER_SECOND);
    }

    /** User and system ticks of one thread's {@code stat} line if it is a JIT compiler thread, else 0. */
    static long compilerTicks(String stat) {
        int open = stat.indexOf('(');
        int close = stat.lastIndexOf(')');
        if (open < 0 || close < open || !stat.substring(open + 1, close).contains("CompilerThre")) {
            return 0;
        }
        // after the name: state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime stime ...
        String[] fields = stat.substring(close + 1).trim().split(" +");
        if (fields.length < 13) {
            throw new IllegalArgumentException("not a /proc stat line: " + stat);
        }
        return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
    }
}

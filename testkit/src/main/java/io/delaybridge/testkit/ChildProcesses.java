package io.delaybridge.testkit;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * What the servers share about their child processes: one JVM shutdown hook that SIGKILLs every child still
 * running, the java executable, killing with a wait, and the tail of a log file for error messages.
 */
final class ChildProcesses {

    private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            for (Process p : LIVE) {
                                p.destroyForcibly();
                            }
                        },
                        "testkit-child-reaper"));
    }

    private ChildProcesses() {}

    /** Sends {@code process} (called {@code name} in errors) a signal by name ({@code STOP}, {@code CONT}, ...). */
    static void signal(Process process, String signal, String name) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + process.pid() + " (" + name + ") failed");
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while signalling " + name, e);
        }
    }

    static void register(Process process) {
        LIVE.add(process);
        process.onExit().thenRun(() -> LIVE.remove(process));
    }

    /** SIGKILL, then wait until the process is gone (its ports and files are released). */
    static void killAndWait(Process process) {
        process.destroyForcibly();
        waitUninterruptibly(process, 30);
    }

    /** SIGTERM, wait up to {@code graceSeconds}, then SIGKILL. Returns true if the process ended on SIGTERM. */
    static boolean terminate(Process process, long graceSeconds) {
        process.destroy();
        if (waitUninterruptibly(process, graceSeconds)) {
            return true;
        }
        killAndWait(process);
        return false;
    }

    private static boolean waitUninterruptibly(Process process, long seconds) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return process.waitFor(seconds, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The java launcher of this JVM, so that the child runs on the same Java. */
    static String javaExecutable() {
        Optional<String> command = ProcessHandle.current().info().command();
        if (command.isPresent()
                && Files.isExecutable(Path.of(command.get()))
                && Path.of(command.get()).getFileName().toString().startsWith("java")) {
            return command.get();
        }
        Path fromHome = Path.of(System.getProperty("java.home"), "bin", isWindows() ? "java.exe" : "java");
        return fromHome.toString();
    }

    static boolean isWindows() {
        return System.getProperty("os.name", "").toLowerCase().startsWith("windows");
    }

    /** The last {@code maxLines} lines of a log file (at most 16 KiB), for error messages. */
    static String tail(Path file, int maxLines) {
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "r")) {
            long length = raf.length();
            int size = (int) Math.min(length, 16 * 1024);
            byte[] bytes = new byte[size];
            raf.seek(length - size);
            raf.readFully(bytes);
            String text = new String(bytes, StandardCharsets.UTF_8);
            String[] lines = text.split("\r?\n");
            int from = Math.max(0, lines.length - maxLines);
            StringBuilder sb = new StringBuilder();
            for (int i = from; i < lines.length; i++) {
                sb.append("    ").append(lines[i]).append('\n');
            }
            return sb.length() == 0 ? "    (empty)\n" : sb.toString();
        } catch (IOException e) {
            return "    (cannot read " + file + ": " + e + ")\n";
        }
    }

    static boolean logMentionsPortInUse(Path log) {
        String tail = tail(log, 200);
        return tail.contains("Address already in use") || tail.contains("BindException");
    }

    /**
     * Starts a small shell watchdog that SIGKILLs {@code child} once this JVM has ended, for children that cannot
     * watch their parent themselves (redis-server). It polls once a second and ends when the child ends. Without
     * it a test JVM killed by SIGKILL (no shutdown hooks) would leave the child running. No-op on Windows.
     */
    static void killWhenThisJvmEnds(Process child) {
        if (isWindows()) {
            return;
        }
        String script = "while kill -0 \"$0\" 2>/dev/null && kill -0 \"$1\" 2>/dev/null; do sleep 1; done; "
                + "kill -0 \"$0\" 2>/dev/null || kill -9 \"$1\" 2>/dev/null; exit 0";
        ProcessBuilder pb = new ProcessBuilder(
                        "sh",
                        "-c",
                        script,
                        Long.toString(ProcessHandle.current().pid()),
                        Long.toString(child.pid()))
                .redirectInput(ProcessBuilder.Redirect.from(devNull()))
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.DISCARD);
        try {
            pb.start();
        } catch (IOException e) {
            // Best effort: the JVM shutdown hook still covers every normal exit.
        }
    }

    private static java.io.File devNull() {
        return new java.io.File("/dev/null");
    }

    static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for a server", e);
        }
    }
}

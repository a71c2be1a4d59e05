package io.delaybridge.testkit;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * A Java program as a child JVM, so that {@code kill -9}, SIGTERM, SIGSTOP and SIGCONT are real signals: the bridge
 * in fault tests, the fault campaign and the benchmarks. It runs a main class on a class path, or a jar, on this JVM's
 * java; its output is appended to a log file; it never outlives this JVM (a shutdown hook SIGKILLs it).
 *
 * <pre>{@code
 * ChildJvm bridge = ChildJvm.mainClass("bridge-1", "io.delaybridge.bridge.DelayBridgeApplication",
 *                 System.getProperty("java.class.path"))
 *         .args("server", config.toString())
 *         .env(Map.of("DELAY_INSTANCE_ID", "bridge-1"))
 *         .log(dir.resolve("bridge-1.log"))
 *         .start();
 * bridge.awaitReady(Duration.ofSeconds(60), () -> healthy(adminPort));
 * bridge.kill();                     // SIGKILL, returns once it is gone
 * bridge.signal("STOP");             // a zombie: frozen, then
 * bridge.signal("CONT");
 * int status = bridge.terminate(Duration.ofSeconds(30)); // SIGTERM, SIGKILL after the grace time
 * }</pre>
 */
public final class ChildJvm implements AutoCloseable {

    private final String name;
    private final Process process;
    private final Path log;

    private ChildJvm(String name, Process process, Path log) {
        this.name = name;
        this.process = process;
        this.log = log;
    }

    /** A child that runs {@code mainClass} on {@code classPath} (e.g. this JVM's {@code java.class.path}). */
    public static Builder mainClass(String name, String mainClass, String classPath) {
        return new Builder(name, mainClass, classPath, null);
    }

    /** A child that runs {@code java -jar jar}. */
    public static Builder jar(String name, Path jar) {
        return new Builder(name, null, null, jar);
    }

    /**
     * A child that runs {@code command} as given, e.g. another program's own start line ({@code java ... -jar ...}):
     * {@link Builder#args} are appended to it; JVM options and system properties do not apply.
     */
    public static Builder command(String name, List<String> command) {
        if (command.isEmpty()) {
            throw new IllegalArgumentException("an empty command for " + name);
        }
        Builder builder = new Builder(name, null, null, null);
        builder.command.addAll(command);
        return builder;
    }

    /** How to start a child JVM; {@link #start()} starts it. */
    public static final class Builder {
        private final String name;
        private final String mainClass;
        private final String classPath;
        private final Path jar;
        private final List<String> jvmOptions = new ArrayList<>();
        private final Map<String, String> systemProperties = new LinkedHashMap<>();
        private final Map<String, String> env = new LinkedHashMap<>();
        private final List<String> args = new ArrayList<>();
        /** For {@link ChildJvm#command}: the command line, in place of java and its options. */
        private final List<String> command = new ArrayList<>();

        private Path log;

        private Builder(String name, String mainClass, String classPath, Path jar) {
            this.name = name;
            this.mainClass = mainClass;
            this.classPath = classPath;
            this.jar = jar;
        }

        /** JVM options before the main class, e.g. {@code -Xmx384m}. */
        public Builder jvmOptions(List<String> options) {
            jvmOptions.addAll(options);
            return this;
        }

        public Builder systemProperty(String key, String value) {
            systemProperties.put(key, value);
            return this;
        }

        /** Environment variables on top of this JVM's. */
        public Builder env(Map<String, String> variables) {
            env.putAll(variables);
            return this;
        }

        public Builder env(String key, String value) {
            env.put(key, value);
            return this;
        }

        /** The program's arguments. */
        public Builder args(String... arguments) {
            args.addAll(List.of(arguments));
            return this;
        }

        /** The file its output (stdout and stderr) is appended to; default {@code <tmp>/<name>.log}. */
        public Builder log(Path file) {
            this.log = file;
            return this;
        }

        /** Starts the child; does not wait for it to be ready ({@link ChildJvm#awaitReady}). */
        public ChildJvm start() {
            try {
                Path logFile = log != null ? log : Files.createTempFile(name + "-", ".log");
                if (logFile.toAbsolutePath().getParent() != null) {
                    Files.createDirectories(logFile.toAbsolutePath().getParent());
                }
                List<String> command = new ArrayList<>(this.command);
                if (command.isEmpty()) {
                    command.add(ChildProcesses.javaExecutable());
                    command.addAll(jvmOptions);
                    systemProperties.forEach((key, value) -> command.add("-D" + key + "=" + value));
                    if (jar != null) {
                        command.add("-jar");
                        command.add(jar.toString());
                    } else {
                        // through an argument file: a long class path could pass the kernel's limit for one argument
                        Path argFile = Files.createTempFile(name + "-classpath-", ".args");
                        argFile.toFile().deleteOnExit();
                        Files.writeString(
                                argFile,
                                "-cp \"" + classPath.replace("\\", "\\\\").replace("\"", "\\\"") + "\"\n",
                                StandardCharsets.UTF_8);
                        command.add("@" + argFile);
                        command.add(mainClass);
                    }
                }
                command.addAll(args);
                ProcessBuilder builder = new ProcessBuilder(command)
                        .redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
                        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
                builder.environment().putAll(env);
                Process process = builder.start();
                ChildProcesses.register(process);
                return new ChildJvm(name, process, logFile);
            } catch (IOException e) {
                throw new UncheckedIOException("could not start " + name, e);
            }
        }
    }

    public String name() {
        return name;
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** The exit status; the child must have ended. */
    public int exitValue() {
        return process.exitValue();
    }

    public Path log() {
        return log;
    }

    /** The last lines of its log, for error messages. */
    public String logTail(int lines) {
        return ChildProcesses.tail(log, lines);
    }

    /**
     * Waits until {@code ready} holds (asked every 100 ms); throws with the log's tail if the child ended first or
     * the time ran out.
     */
    public void awaitReady(Duration timeout, BooleanSupplier ready) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!ready.getAsBoolean()) {
            if (!process.isAlive()) {
                throw new IllegalStateException(name + " ended with status " + process.exitValue()
                        + " while starting; the end of " + log + ":\n" + logTail(30));
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(
                        name + " not ready after " + timeout + "; the end of " + log + ":\n" + logTail(30));
            }
            ChildProcesses.pause(100);
        }
    }

    /** kill -9; returns once it is gone. */
    public void kill() {
        ChildProcesses.killAndWait(process);
    }

    /** SIGTERM (a graceful stop); kill -9 after {@code grace}. Returns its exit status. */
    public int terminate(Duration grace) {
        ChildProcesses.terminate(process, Math.max(1, grace.toSeconds()));
        return process.exitValue();
    }

    /** Waits until it ends by itself; false if it still runs after {@code timeout}. */
    public boolean awaitExit(Duration timeout) throws InterruptedException {
        return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Sends a signal by name ({@code STOP}, {@code CONT}, {@code TERM}, ...) with {@code kill}. */
    public void signal(String signal) {
        ChildProcesses.signal(process, signal, name);
    }

    /** SIGTERM with 30 s of grace; a frozen child is woken first, or it could not act on the signal. */
    @Override
    public void close() {
        if (process.isAlive()) {
            try {
                signal("CONT");
            } catch (RuntimeException e) {
                // it ended meanwhile
            }
            terminate(Duration.ofSeconds(30));
        }
    }

    @Override
    public String toString() {
        return name + " (pid " + process.pid() + ")";
    }
}

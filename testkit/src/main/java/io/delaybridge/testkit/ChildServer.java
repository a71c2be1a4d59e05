package io.delaybridge.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A server running as a child process, with its data in one directory and its output in a log file there: started
 * and waited for until it answers, killed with SIGKILL, stopped with SIGTERM, restarted on the same ports and data.
 * What differs between servers (the command line, how to tell that it answers) is left to the subclasses.
 */
abstract class ChildServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ChildServer.class);
    private static final long STOP_GRACE_SECONDS = 30;
    private static final int PORT_ATTEMPTS = 5;

    /** Tells whether a starting server answers yet. */
    interface ReadinessProbe extends AutoCloseable {
        /** Null once the server is ready, else what it is still waiting for. */
        String problem() throws Exception;

        @Override
        default void close() {}
    }

    protected final Path dataDir;
    private Process process;
    private Duration lastStartDuration = Duration.ZERO;

    protected ChildServer(Path dataDir) {
        this.dataDir = dataDir.toAbsolutePath();
    }

    /**
     * Creates a server with {@code candidate} and starts it; when the start fails because a port picked here was
     * taken meanwhile ({@code portsPicked}), tries again with a fresh candidate.
     */
    static <S extends ChildServer> S startRetryingPorts(Supplier<S> candidate, boolean portsPicked) {
        for (int attempt = 1; ; attempt++) {
            S server = candidate.get();
            try {
                server.launch();
                return server;
            } catch (PortInUseException e) {
                if (!portsPicked || attempt >= PORT_ATTEMPTS) {
                    throw e;
                }
                LOG.warn("{}: a port was taken; retrying with new ports", server.name());
            }
        }
    }

    /** What the log lines and errors call this server, e.g. {@code Kafka broker on 127.0.0.1:9092}. */
    protected abstract String name();

    /** The command line of the child process; called at every start. */
    protected abstract List<String> command() throws IOException;

    /** A probe for one start: asked repeatedly until it reports ready or the start times out. */
    protected abstract ReadinessProbe readinessProbe();

    protected abstract Duration startTimeout();

    /** The file the child's output goes to, in the data directory. */
    public abstract Path logFile();

    /** Starts the process; a subclass may retry passing start failures. */
    protected Process startProcess(ProcessBuilder builder) throws IOException {
        return builder.start();
    }

    /** Called once the process runs, before it is waited for. */
    protected void started(Process process) {}

    public Path dataDir() {
        return dataDir;
    }

    /** How long the last start or restart took until the server answered. */
    public synchronized Duration lastStartDuration() {
        return lastStartDuration;
    }

    /** Process id of the current (or last) child process. */
    public synchronized long pid() {
        return process.pid();
    }

    /**
     * Sends the running process a signal by name: {@code STOP} freezes it (a broker that answers nothing while its
     * connections stay open), {@code CONT} wakes it.
     */
    public synchronized void signal(String signal) {
        ChildProcesses.signal(process, signal, name());
    }

    public synchronized boolean isAlive() {
        return process != null && process.isAlive();
    }

    /** SIGKILL: the server gets no chance to flush or shut down; returns once the process is gone. */
    public synchronized void kill() {
        if (process != null) {
            ChildProcesses.killAndWait(process);
        }
    }

    /** Graceful shutdown: SIGTERM, SIGKILL after 30 s. */
    public synchronized void stop() {
        if (process != null && process.isAlive() && !ChildProcesses.terminate(process, STOP_GRACE_SECONDS)) {
            LOG.warn("{} did not stop within {} s and was killed", name(), STOP_GRACE_SECONDS);
        }
    }

    /**
     * Starts the server again on the same ports and data directory (stopping it gracefully first if it still runs)
     * and returns once it answers.
     */
    public synchronized void restart() {
        stop();
        launch();
    }

    @Override
    public void close() {
        stop();
    }

    protected final synchronized void launch() {
        long started = System.nanoTime();
        try {
            Files.createDirectories(dataDir);
            List<String> command = command();
            Files.writeString(
                    logFile(),
                    "---- starting " + name() + "\n",
                    StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
            process = startProcess(new ProcessBuilder(command)
                    .directory(dataDir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile().toFile())));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot start " + name() + " in " + dataDir, e);
        }
        ChildProcesses.register(process);
        started(process);
        awaitReady(started);
        lastStartDuration = Duration.ofNanos(System.nanoTime() - started);
        LOG.info("{} ready in {} ms (pid {}, data {})", name(), lastStartDuration.toMillis(), process.pid(), dataDir);
    }

    private void awaitReady(long startedNanos) {
        long deadline = startedNanos + startTimeout().toNanos();
        String lastProblem = "not started";
        try (ReadinessProbe probe = readinessProbe()) {
            while (System.nanoTime() < deadline) {
                if (!process.isAlive()) {
                    String message = name() + " exited with code " + process.exitValue() + " before it was ready."
                            + " Last lines of " + logFile() + ":\n" + ChildProcesses.tail(logFile(), 40);
                    if (ChildProcesses.logMentionsPortInUse(logFile())) {
                        throw new PortInUseException(message);
                    }
                    throw new IllegalStateException(message);
                }
                String problem;
                try {
                    problem = probe.problem();
                } catch (Exception e) {
                    problem = e.toString();
                }
                if (problem == null) {
                    return;
                }
                lastProblem = problem;
                ChildProcesses.pause(20);
            }
        }
        ChildProcesses.killAndWait(process);
        throw new IllegalStateException(name() + " (pid " + process.pid() + ") was not ready within "
                + startTimeout().toSeconds() + " s (" + lastProblem + ") and was killed. Last lines of " + logFile()
                + ":\n" + ChildProcesses.tail(logFile(), 40));
    }
}

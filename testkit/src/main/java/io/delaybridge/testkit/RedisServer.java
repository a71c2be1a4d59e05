package io.delaybridge.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real {@code redis-server} child process for tests, benchmarks and fault campaigns: durable by default (as the
 * bridge ships it) and killable with SIGKILL, then restartable on the same port and directory (the AOF is
 * reloaded).
 *
 * <pre>{@code
 * try (RedisServer redis = RedisServer.start(tempDir)) {
 *     RedisClient client = RedisClient.create(redis.uri());
 *     // ... write, then
 *     redis.kill();     // SIGKILL
 *     redis.restart();  // same port and directory; returns once the AOF is loaded
 * }
 * }</pre>
 *
 * <p>Arguments: {@code --port P --bind 127.0.0.1 --save "" --appendonly yes --appendfsync always --dir <dataDir>
 * --maxmemory-policy noeviction}, then the {@code extraArgs} of {@link #start(Path, int, List)} (later ones win,
 * e.g. {@code List.of("--appendfsync", "everysec")}). Output goes to {@code redis.log} in the data directory.
 *
 * <p>The binary: {@code $REDIS_SERVER_BIN} if set, else {@code redis-server} on the PATH, else the one bundled
 * in the Maven artifact {@code com.github.codemonstur:embedded-redis} (Redis 6.2 on Linux x86-64), extracted
 * once into the temporary directory. Versions differ: check {@link #version()} before relying on newer
 * commands (the bundled 6.2 has no Redis 7 commands such as {@code ZMPOP} or functions, and no {@code WAITAOF},
 * which needs 7.2).
 */
public final class RedisServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(RedisServer.class);
    private static final Duration START_TIMEOUT = Duration.ofSeconds(30);
    private static final long STOP_GRACE_SECONDS = 30;
    private static final int PORT_ATTEMPTS = 5;

    private final Path binary;
    private final Path dataDir;
    private final int port;
    private final List<String> extraArgs;
    private final String password;
    private Process process;
    private Duration lastStartDuration = Duration.ZERO;
    private String version;

    private RedisServer(Path binary, Path dataDir, int port, List<String> extraArgs) {
        this.binary = binary;
        this.dataDir = dataDir.toAbsolutePath();
        this.port = port;
        this.extraArgs = List.copyOf(extraArgs);
        this.password = passwordFrom(this.extraArgs);
    }

    /** Starts a durable redis-server on a free port with its files in {@code dataDir}. */
    public static RedisServer start(Path dataDir) {
        return start(dataDir, 0, List.of());
    }

    /** Starts a durable redis-server on {@code port} (0 = a free port) with its files in {@code dataDir}. */
    public static RedisServer start(Path dataDir, int port) {
        return start(dataDir, port, List.of());
    }

    /**
     * Starts a redis-server on {@code port} (0 = pick a free one, retried with another if it is taken meanwhile)
     * with its files in {@code dataDir} and {@code extraArgs} after the defaults; returns once it answers PING
     * and has loaded its data.
     */
    public static RedisServer start(Path dataDir, int port, List<String> extraArgs) {
        return start(RedisBinary.locate(), dataDir, port, extraArgs);
    }

    static RedisServer start(Path binary, Path dataDir, int port, List<String> extraArgs) {
        for (int attempt = 1; ; attempt++) {
            RedisServer server = new RedisServer(binary, dataDir, port == 0 ? FreePorts.pick() : port, extraArgs);
            try {
                server.launch();
                return server;
            } catch (PortInUseException e) {
                if (port != 0 || attempt >= PORT_ATTEMPTS) {
                    throw e;
                }
                LOG.warn("Redis port {} was taken; retrying with another port", server.port);
            }
        }
    }

    /** {@code redis://127.0.0.1:port}. */
    public String uri() {
        return "redis://127.0.0.1:" + port;
    }

    public int port() {
        return port;
    }

    public Path dataDir() {
        return dataDir;
    }

    /** The server's log file (its standard output and error). */
    public Path logFile() {
        return dataDir.resolve("redis.log");
    }

    /** The redis-server executable that this server runs. */
    public Path binary() {
        return binary;
    }

    /** {@code redis_version} from {@code INFO server}, e.g. {@code 6.2.11}. */
    public synchronized String version() {
        if (version == null) {
            version = withConnection(resp -> Resp.infoField((String) resp.call("INFO", "server"), "redis_version"));
        }
        return version;
    }

    /** How long the last start or restart took until the server answered with its data loaded. */
    public synchronized Duration lastStartDuration() {
        return lastStartDuration;
    }

    public synchronized long pid() {
        return process.pid();
    }

    public synchronized boolean isAlive() {
        return process != null && process.isAlive();
    }

    /** SIGKILL: whatever the AOF fsync policy had not written is lost; returns once the process is gone. */
    public synchronized void kill() {
        if (process != null) {
            ChildProcesses.killAndWait(process);
        }
    }

    /**
     * Graceful shutdown: SIGTERM, on which Redis flushes and fsyncs its AOF (and would write an RDB file only if
     * {@code save} points were configured); SIGKILL after 30 s.
     */
    public synchronized void stop() {
        if (process != null && process.isAlive()) {
            if (!ChildProcesses.terminate(process, STOP_GRACE_SECONDS)) {
                LOG.warn("redis-server on port {} did not stop within {} s and was killed", port, STOP_GRACE_SECONDS);
            }
        }
    }

    /**
     * Starts the server again on the same port and directory (stopping it gracefully first if it still runs);
     * returns once it answers and has reloaded its AOF.
     */
    public synchronized void restart() {
        stop();
        launch();
    }

    @Override
    public void close() {
        stop();
    }

    @Override
    public String toString() {
        return "RedisServer[" + uri() + ", " + dataDir + "]";
    }

    private synchronized void launch() {
        long started = System.nanoTime();
        List<String> cmd = new ArrayList<>(List.of(
                binary.toString(),
                "--port", Integer.toString(port),
                "--bind", "127.0.0.1",
                "--save", "",
                "--appendonly", "yes",
                "--appendfsync", "always",
                "--dir", dataDir.toString(),
                "--maxmemory-policy", "noeviction"));
        cmd.addAll(extraArgs);
        try {
            Files.createDirectories(dataDir);
            Files.writeString(logFile(), "---- starting redis-server on port " + port + ": " + cmd + "\n",
                    StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            ProcessBuilder pb = new ProcessBuilder(cmd)
                    .directory(dataDir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile().toFile()));
            process = startRetryingTextFileBusy(pb);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot start " + cmd.get(0) + " in " + dataDir, e);
        }
        ChildProcesses.register(process);
        ChildProcesses.killWhenThisJvmEnds(process);
        awaitReady(started);
        lastStartDuration = Duration.ofNanos(System.nanoTime() - started);
        LOG.info("redis-server ready on port {} in {} ms (pid {}, data {})", port, lastStartDuration.toMillis(),
                process.pid(), dataDir);
    }

    /**
     * A binary that was just written can fail to start with ETXTBSY while another thread's fork still holds the
     * written file open; that passes within milliseconds.
     */
    private static Process startRetryingTextFileBusy(ProcessBuilder pb) throws IOException {
        for (int attempt = 1; ; attempt++) {
            try {
                return pb.start();
            } catch (IOException e) {
                if (attempt >= 20 || e.getMessage() == null || !e.getMessage().contains("Text file busy")) {
                    throw e;
                }
                ChildProcesses.pause(50);
            }
        }
    }

    private void awaitReady(long startedNanos) {
        long deadline = startedNanos + START_TIMEOUT.toNanos();
        String lastProblem = "not started";
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                String message = "redis-server exited with code " + process.exitValue() + " before it was ready on "
                        + uri() + ". Last lines of " + logFile() + ":\n" + ChildProcesses.tail(logFile(), 30);
                if (ChildProcesses.logMentionsPortInUse(logFile())) {
                    throw new PortInUseException(message);
                }
                throw new IllegalStateException(message);
            }
            try (Resp resp = Resp.connect(port, 1000)) {
                if (password != null) {
                    resp.call("AUTH", password);
                }
                Object pong = resp.call("PING");
                String info = (String) resp.call("INFO", "persistence");
                if ("PONG".equals(pong) && "0".equals(Resp.infoField(info, "loading"))) {
                    return;
                }
                lastProblem = "PING answered " + pong + ", loading:" + Resp.infoField(info, "loading");
            } catch (Resp.ErrorReply e) {
                lastProblem = e.getMessage(); // -LOADING while the AOF is read
            } catch (IOException e) {
                lastProblem = e.toString();
            }
            ChildProcesses.pause(10);
        }
        ChildProcesses.killAndWait(process);
        throw new IllegalStateException("redis-server on " + uri() + " (pid " + process.pid() + ") was not ready within "
                + START_TIMEOUT.toSeconds() + " s (" + lastProblem + ") and was killed. Last lines of " + logFile()
                + ":\n" + ChildProcesses.tail(logFile(), 30));
    }

    private interface RespCall<T> {
        T apply(Resp resp) throws IOException;
    }

    private <T> T withConnection(RespCall<T> call) {
        try (Resp resp = Resp.connect(port, 5000)) {
            if (password != null) {
                resp.call("AUTH", password);
            }
            return call.apply(resp);
        } catch (IOException e) {
            throw new UncheckedIOException("Redis on " + uri() + " did not answer", e);
        }
    }

    private static String passwordFrom(List<String> args) {
        String password = null;
        for (int i = 0; i < args.size() - 1; i++) {
            if (args.get(i).equals("--requirepass")) {
                password = args.get(i + 1);
            }
        }
        return password;
    }
}

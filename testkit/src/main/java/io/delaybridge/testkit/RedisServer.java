package io.delaybridge.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntSupplier;
import javax.net.ssl.SSLContext;
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
 * --maxmemory-policy noeviction --auto-aof-rewrite-min-size 1gb}, then the {@code extraArgs} of {@link #start(Path, int, List)} (later ones win,
 * e.g. {@code List.of("--appendfsync", "everysec")}). Output goes to {@code redis.log} in the data directory.
 *
 * <p>The binary: {@code $REDIS_SERVER_BIN} if set, else {@code redis-server} on the PATH, else the one bundled
 * in the Maven artifact {@code com.github.codemonstur:embedded-redis} (Redis 6.2 on Linux x86-64), extracted
 * once into the temporary directory. Versions differ: check {@link #version()} before relying on newer
 * commands (the bundled 6.2 has no Redis 7 commands such as {@code ZMPOP} or functions, and no {@code WAITAOF},
 * which needs 7.2).
 */
public final class RedisServer extends ChildServer {

    private static final Logger LOG = LoggerFactory.getLogger(RedisServer.class);
    /**
     * A restart loads the whole AOF first (answering LOADING meanwhile), and the AOF is rewritten only past 1 GB: after
     * a million records of a fault campaign, loading took 10 s on a quiet 2-core machine and over 30 s on a busy one.
     * A start that fails outright ends sooner: the process exits, and {@link ChildServer} says so.
     */
    private static final Duration START_TIMEOUT = Duration.ofSeconds(120);

    private final Path binary;
    private final int port;
    private final List<String> extraArgs;
    private final String password;
    private final TestCertificates tls;
    private final SSLContext tlsContext;
    private String version;

    private RedisServer(Path binary, Path dataDir, int port, List<String> extraArgs, TestCertificates tls) {
        super(dataDir);
        this.binary = binary;
        this.port = port;
        this.extraArgs = List.copyOf(extraArgs);
        this.password = passwordFrom(this.extraArgs);
        this.tls = tls;
        this.tlsContext = tls == null ? null : tls.clientContext();
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
        return startRetryingPorts(
                () -> new RedisServer(binary, dataDir, port == 0 ? FreePorts.pick() : port, extraArgs, null),
                port == 0);
    }

    /**
     * Starts a redis-server that speaks TLS only, on a free port: no plain port, certificates from {@code tls}, client
     * certificates required ({@code tls-auth-clients yes}), TLS for replication and the cluster bus too. Its {@link
     * #uri()} is {@code rediss://}; the kit's own calls show the client certificate of {@code tls}.
     */
    public static RedisServer startTls(Path dataDir, TestCertificates tls, List<String> extraArgs) {
        Path binary = RedisBinary.locate();
        return startRetryingPorts(() -> new RedisServer(binary, dataDir, FreePorts.pick(), extraArgs, tls), true);
    }

    /** As {@link #startTls(Path, TestCertificates, List)} with the ports from {@code ports}. */
    static RedisServer startTls(Path dataDir, TestCertificates tls, IntSupplier ports, List<String> extraArgs) {
        Path binary = RedisBinary.locate();
        return startRetryingPorts(() -> new RedisServer(binary, dataDir, ports.getAsInt(), extraArgs, tls), true);
    }

    /** Starts on a port from {@code ports}, asking it again when the port was taken meanwhile. */
    static RedisServer start(Path dataDir, IntSupplier ports, List<String> extraArgs) {
        Path binary = RedisBinary.locate();
        return startRetryingPorts(() -> new RedisServer(binary, dataDir, ports.getAsInt(), extraArgs, null), true);
    }

    /**
     * One command on a fresh connection, e.g. {@code call("CLIENT", "PAUSE", "5000", "WRITE")}: a status or bulk reply
     * as a String (null for a nil), an integer as a Long, an array as a List; an error reply or a dead server throws
     * IllegalStateException.
     */
    public Object call(String... args) {
        return RedisProbes.call(this, args);
    }

    /** {@code redis://127.0.0.1:port}, or {@code rediss://127.0.0.1:port} for a TLS server. */
    public String uri() {
        return (tls == null ? "redis://" : "rediss://") + "127.0.0.1:" + port;
    }

    /** The certificates of a TLS server, or null. */
    public TestCertificates tls() {
        return tls;
    }

    /** A fresh connection of the kit's own client, over TLS for a TLS server. */
    Resp connect(int timeoutMillis) throws IOException {
        return Resp.connect(port, timeoutMillis, tlsContext);
    }

    public int port() {
        return port;
    }

    /** The server's log file (its standard output and error). */
    @Override
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

    @Override
    public String toString() {
        return "RedisServer[" + uri() + ", " + dataDir + "]";
    }

    @Override
    protected String name() {
        return "redis-server on port " + port;
    }

    @Override
    protected Duration startTimeout() {
        return START_TIMEOUT;
    }

    @Override
    protected List<String> command() {
        List<String> cmd = new ArrayList<>(List.of(
                binary.toString(),
                "--port",
                Integer.toString(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "yes",
                "--appendfsync",
                "always",
                "--dir",
                dataDir.toString(),
                "--maxmemory-policy",
                "noeviction",
                // the setting docs/operations.md recommends: at the default 64mb a full-speed bridge made Redis
                // rewrite its AOF every few seconds, each rewrite a fork and disk writes beside the fsyncs
                "--auto-aof-rewrite-min-size",
                "1gb"));
        if (tls != null) {
            cmd.addAll(tls.redisServerArgs(port));
        }
        cmd.addAll(extraArgs);
        return cmd;
    }

    @Override
    protected Process startProcess(ProcessBuilder builder) throws IOException {
        return startRetryingTextFileBusy(builder);
    }

    @Override
    protected void started(Process process) {
        ChildProcesses.killWhenThisJvmEnds(process);
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

    /** Ready once PING answers PONG and the AOF is loaded ({@code loading:0}). */
    @Override
    protected ReadinessProbe readinessProbe() {
        return () -> {
            try (Resp resp = connect(1000)) {
                if (password != null) {
                    resp.call("AUTH", password);
                }
                Object pong = resp.call("PING");
                String loading = Resp.infoField((String) resp.call("INFO", "persistence"), "loading");
                return "PONG".equals(pong) && "0".equals(loading)
                        ? null
                        : "PING answered " + pong + ", loading:" + loading;
            } catch (Resp.ErrorReply e) {
                return e.getMessage(); // -LOADING while the AOF is read
            }
        };
    }

    private interface RespCall<T> {
        T apply(Resp resp) throws IOException;
    }

    private <T> T withConnection(RespCall<T> call) {
        try (Resp resp = connect(5000)) {
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

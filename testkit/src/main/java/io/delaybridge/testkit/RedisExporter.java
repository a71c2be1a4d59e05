package io.delaybridge.testkit;

import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * redis_exporter (Debian's {@code prometheus-redis-exporter}) as a child process: Redis's {@code INFO} as Prometheus
 * metrics ({@code redis_memory_used_bytes}, {@code redis_memory_max_bytes}, ...) on {@code /metrics}, for tests of
 * the alert rules and dashboard that watch Redis memory. The binary: {@code $REDIS_EXPORTER_BIN} if set, else
 * {@code prometheus-redis-exporter} on the PATH.
 */
public final class RedisExporter extends ChildServer {

    private final String binary;
    private final String redisUri;
    private final int port;

    private RedisExporter(Path dataDir, String binary, String redisUri, int port) {
        super(dataDir);
        this.binary = binary;
        this.redisUri = redisUri;
        this.port = port;
    }

    /** Starts an exporter of the Redis at {@code redisUri} on a free port. */
    public static RedisExporter start(Path dataDir, String redisUri) {
        String binary = System.getenv().getOrDefault("REDIS_EXPORTER_BIN", "prometheus-redis-exporter");
        return startRetryingPorts(() -> new RedisExporter(dataDir, binary, redisUri, FreePorts.pick()), true);
    }

    /** {@code 127.0.0.1:port}, as a scrape target. */
    public String target() {
        return "127.0.0.1:" + port;
    }

    @Override
    protected String name() {
        return "redis_exporter on port " + port;
    }

    @Override
    protected List<String> command() {
        return List.of(binary, "-redis.addr", redisUri, "-web.listen-address", target());
    }

    @Override
    protected ReadinessProbe readinessProbe() {
        return () -> {
            try (Socket socket = new Socket(FreePorts.LOOPBACK, port)) {
                return null;
            }
        };
    }

    @Override
    protected Duration startTimeout() {
        return Duration.ofSeconds(30);
    }

    @Override
    public Path logFile() {
        return dataDir.resolve("redis-exporter.log");
    }

    @Override
    protected void started(Process process) {
        ChildProcesses.killWhenThisJvmEnds(process);
    }
}

package io.delaybridge.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLContext;

/**
 * One Redis Sentinel as a child process: {@code redis-server <dir>/sentinel.conf --sentinel}, watching one master.
 * The configuration file is written once; the sentinel rewrites it as it learns (replicas, other sentinels, a new
 * master), so a restart resumes where it stopped. {@link RedisSentinels} runs three of them.
 */
final class RedisSentinel extends ChildServer {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(30);

    private final Path binary;
    private final int port;
    private final String masterName;
    private final int masterPort;
    private final TestCertificates tls;
    private final SSLContext tlsContext;

    private RedisSentinel(Path binary, Path dir, int port, String masterName, int masterPort, TestCertificates tls) {
        super(dir);
        this.binary = binary;
        this.port = port;
        this.masterName = masterName;
        this.masterPort = masterPort;
        this.tls = tls;
        this.tlsContext = tls == null ? null : tls.clientContext();
    }

    /** A sentinel of the master on {@code masterPort}; with {@code tls} not null, TLS only, to clients and Redis. */
    static RedisSentinel start(Path dir, String masterName, int masterPort, TestCertificates tls) {
        Path binary = RedisBinary.locate();
        return startRetryingPorts(
                () -> new RedisSentinel(binary, dir, FreePorts.pick(), masterName, masterPort, tls), true);
    }

    int port() {
        return port;
    }

    Path configFile() {
        return dataDir.resolve("sentinel.conf");
    }

    @Override
    public Path logFile() {
        return dataDir.resolve("sentinel.log");
    }

    @Override
    protected String name() {
        return "redis sentinel on port " + port;
    }

    @Override
    protected Duration startTimeout() {
        return START_TIMEOUT;
    }

    @Override
    protected List<String> command() throws IOException {
        if (!Files.exists(configFile())) {
            String host = FreePorts.LOOPBACK.getHostAddress();
            List<String> ports = tls == null
                    ? List.of("port " + port)
                    : List.of(
                            "port 0",
                            "tls-port " + port,
                            "tls-cert-file " + tls.serverCertificate(),
                            "tls-key-file " + tls.serverKey(),
                            "tls-ca-cert-file " + tls.caFile(),
                            "tls-auth-clients yes",
                            "tls-replication yes");
            Files.writeString(
                    configFile(),
                    String.join("\n", ports) + "\n"
                            + String.join(
                                    "\n",
                                    "bind " + host,
                                    "daemonize no",
                                    "dir " + dataDir,
                                    "sentinel monitor " + masterName + " " + host + " " + masterPort + " 2",
                                    "sentinel down-after-milliseconds " + masterName + " "
                                            + RedisSentinels.DOWN_AFTER_MILLIS,
                                    "sentinel failover-timeout " + masterName + " "
                                            + RedisSentinels.FAILOVER_TIMEOUT_MILLIS,
                                    "sentinel parallel-syncs " + masterName + " 1",
                                    ""));
        }
        return List.of(binary.toString(), configFile().toString(), "--sentinel");
    }

    @Override
    protected void started(Process process) {
        ChildProcesses.killWhenThisJvmEnds(process);
    }

    @Override
    protected ReadinessProbe readinessProbe() {
        return () -> {
            try (Resp resp = Resp.connect(port, 1000, tlsContext)) {
                Object pong = resp.call("PING");
                return "PONG".equals(pong) ? null : "PING answered " + pong;
            }
        };
    }

    /** {@code SENTINEL MASTER <name>} as field/value pairs. */
    Map<String, String> masterState() {
        List<?> reply = (List<?>) call("SENTINEL", "MASTER", masterName);
        Map<String, String> fields = new LinkedHashMap<>();
        for (int i = 0; i + 1 < reply.size(); i += 2) {
            fields.put(String.valueOf(reply.get(i)), String.valueOf(reply.get(i + 1)));
        }
        return fields;
    }

    /** The port of the master as this sentinel reports it ({@code SENTINEL GET-MASTER-ADDR-BY-NAME}). */
    int reportedMasterPort() {
        List<?> reply = (List<?>) call("SENTINEL", "GET-MASTER-ADDR-BY-NAME", masterName);
        return Integer.parseInt(String.valueOf(reply.get(1)));
    }

    Object call(String... args) {
        try (Resp resp = Resp.connect(port, 2000, tlsContext)) {
            return resp.call(args);
        } catch (IOException e) {
            throw new IllegalStateException(
                    String.join(" ", args) + " on sentinel " + port + " failed: " + e.getMessage(), e);
        }
    }
}

package io.delaybridge.testkit;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Redis Sentinel set-up of child processes: a durable master, one replica ({@code --replicaof}) and three
 * sentinels (quorum 2, {@code down-after-milliseconds 1000}), so a killed master's replica is promoted within a few
 * seconds.
 *
 * <pre>{@code
 * try (RedisSentinels redis = RedisSentinels.start(tempDir, "delay")) {
 *     String uri = redis.uri();           // redis-sentinel://127.0.0.1:s1,127.0.0.1:s2,127.0.0.1:s3#delay
 *     RedisServer old = redis.killMaster();
 *     RedisServer promoted = redis.awaitFailover(Duration.ofSeconds(30));
 * }
 * }</pre>
 *
 * <p>Directories: {@code <dir>/redis-1}, {@code <dir>/redis-2} (the master and the replica as started) and {@code
 * <dir>/sentinel-1..3}, each with its log.
 */
public final class RedisSentinels implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(RedisSentinels.class);
    static final int DOWN_AFTER_MILLIS = 1000;
    static final int FAILOVER_TIMEOUT_MILLIS = 3000;
    private static final Duration START_TIMEOUT = Duration.ofSeconds(30);

    private final String masterName;
    private final List<RedisServer> servers;
    private final List<RedisSentinel> sentinels;
    private RedisServer killedMaster;
    private Duration startDuration = Duration.ZERO;

    private final TestCertificates tls;

    private RedisSentinels(
            String masterName, List<RedisServer> servers, List<RedisSentinel> sentinels, TestCertificates tls) {
        this.masterName = masterName;
        this.servers = List.copyOf(servers);
        this.sentinels = List.copyOf(sentinels);
        this.tls = tls;
    }

    /**
     * As {@link #start(Path, String)}, everything speaking TLS only with client certificates required: master and
     * replica ({@link RedisServer#startTls}, replication over TLS) and the sentinels. {@link #uri()} is then {@code
     * rediss-sentinel://}.
     */
    public static RedisSentinels startTls(Path dir, String masterName, TestCertificates tls) {
        return start(dir, masterName, tls);
    }

    /**
     * Starts a master, its replica and three sentinels watching it under {@code masterName}; returns once the
     * replica is in sync and every sentinel knows the replica and the two other sentinels (a fail-over needs both).
     */
    public static RedisSentinels start(Path dir, String masterName) {
        return start(dir, masterName, null);
    }

    private static RedisSentinels start(Path dir, String masterName, TestCertificates tls) {
        if (!masterName.matches("[A-Za-z0-9._-]+")) {
            throw new IllegalArgumentException(
                    "A sentinel master name of letters, digits, '.', '_' or '-', not '" + masterName + "'");
        }
        long started = System.nanoTime();
        List<RedisServer> servers = new ArrayList<>();
        List<RedisSentinel> sentinels = new ArrayList<>();
        try {
            // Redis 7 waits 5 s by default for more replicas before a diskless full sync.
            List<String> noSyncDelay = List.of("--repl-diskless-sync-delay", "0");
            RedisServer master = tls == null
                    ? RedisServer.start(dir.resolve("redis-1"), 0, noSyncDelay)
                    : RedisServer.startTls(dir.resolve("redis-1"), tls, noSyncDelay);
            servers.add(master);
            List<String> replicaArgs = List.of(
                    "--replicaof",
                    FreePorts.LOOPBACK.getHostAddress(),
                    Integer.toString(master.port()),
                    "--repl-diskless-sync-delay",
                    "0");
            RedisServer replica = tls == null
                    ? RedisServer.start(dir.resolve("redis-2"), 0, replicaArgs)
                    : RedisServer.startTls(dir.resolve("redis-2"), tls, replicaArgs);
            servers.add(replica);
            long deadline = started + START_TIMEOUT.toNanos();
            // Sentinels find replicas in the master's INFO, asked at once and then every 10 s: sync first.
            RedisProbes.await(deadline, "the replica to sync", () -> RedisProbes.replicationProblem(replica));
            List<CompletableFuture<RedisSentinel>> starting = new ArrayList<>();
            for (int i = 1; i <= 3; i++) {
                Path sentinelDir = dir.resolve("sentinel-" + i);
                starting.add(CompletableFuture.supplyAsync(
                        () -> RedisSentinel.start(sentinelDir, masterName, master.port(), tls)));
            }
            for (CompletableFuture<RedisSentinel> f : starting) {
                sentinels.add(f.join());
            }
            RedisSentinels set = new RedisSentinels(masterName, servers, sentinels, tls);
            RedisProbes.await(
                    deadline, "every sentinel to know the replica and the other sentinels", set::sentinelProblem);
            set.startDuration = Duration.ofNanos(System.nanoTime() - started);
            LOG.info(
                    "Redis master, replica and three sentinels ready in {} ms: {}",
                    set.startDuration.toMillis(),
                    set.uri());
            return set;
        } catch (RuntimeException e) {
            sentinels.forEach(RedisSentinel::kill);
            servers.forEach(RedisServer::kill);
            throw e;
        }
    }

    private String sentinelProblem() {
        for (RedisSentinel sentinel : sentinels) {
            Map<String, String> state = sentinel.masterState();
            if (!"1".equals(state.get("num-slaves"))
                    || !"2".equals(state.get("num-other-sentinels"))
                    || !"master".equals(state.get("flags"))) {
                return "sentinel " + sentinel.port() + " reports flags " + state.get("flags") + ", "
                        + state.get("num-slaves") + " replicas, " + state.get("num-other-sentinels")
                        + " other sentinels";
            }
        }
        return null;
    }

    /**
     * {@code redis-sentinel://127.0.0.1:s1,127.0.0.1:s2,127.0.0.1:s3#<master name>} ({@code rediss-sentinel://} with
     * TLS).
     */
    public String uri() {
        return (tls == null ? "redis-sentinel://" : "rediss-sentinel://")
                + sentinels.stream().map(s -> "127.0.0.1:" + s.port()).collect(Collectors.joining(",")) + "#"
                + masterName;
    }

    public String masterName() {
        return masterName;
    }

    /** The sentinels' ports. */
    public List<Integer> sentinelPorts() {
        return sentinels.stream().map(RedisSentinel::port).toList();
    }

    /** The two Redis servers: the master and the replica as started. */
    public List<RedisServer> servers() {
        return servers;
    }

    /** The master now, as the first live sentinel reports it. */
    public synchronized RedisServer master() {
        for (RedisSentinel sentinel : sentinels) {
            if (sentinel.isAlive()) {
                int port = sentinel.reportedMasterPort();
                return servers.stream()
                        .filter(s -> s.port() == port)
                        .findFirst()
                        .orElseThrow(() -> new IllegalStateException(
                                "Sentinel " + sentinel.port() + " reports an unknown master on port " + port));
            }
        }
        throw new IllegalStateException("No sentinel is alive");
    }

    /** The server that is not the master now (the replica, or the killed master after a fail-over). */
    public synchronized RedisServer replica() {
        RedisServer master = master();
        return servers.stream().filter(s -> s != master).findFirst().orElseThrow();
    }

    /** SIGKILLs the master now; returns it. */
    public synchronized RedisServer killMaster() {
        RedisServer master = master();
        master.kill();
        killedMaster = master;
        LOG.info("Killed the master {} of {}", master.port(), masterName);
        return master;
    }

    /**
     * Waits until every sentinel reports the replica as the master of {@code masterName} and it answers {@code
     * ROLE} as a master; returns it.
     */
    public synchronized RedisServer awaitFailover(Duration timeout) {
        if (killedMaster == null) {
            throw new IllegalStateException("The master was not killed: nothing to fail over");
        }
        RedisServer promoted =
                servers.stream().filter(s -> s != killedMaster).findFirst().orElseThrow();
        RedisProbes.await(System.nanoTime() + timeout.toNanos(), "the sentinels to promote " + promoted.port(), () -> {
            for (RedisSentinel sentinel : sentinels) {
                int reported = sentinel.reportedMasterPort();
                if (reported != promoted.port()) {
                    return "sentinel " + sentinel.port() + " reports the master on " + reported;
                }
            }
            Object role = ((List<?>) RedisProbes.call(promoted, "ROLE")).get(0);
            return "master".equals(role) ? null : promoted.port() + " answers ROLE " + role;
        });
        LOG.info("Sentinels promoted {} to master of {}", promoted.port(), masterName);
        killedMaster = null;
        return promoted;
    }

    /** How long {@link #start} took until the sentinels were ready for a fail-over. */
    public Duration startDuration() {
        return startDuration;
    }

    @Override
    public void close() {
        sentinels.forEach(RedisSentinel::stop);
        servers.forEach(RedisServer::stop);
    }

    @Override
    public String toString() {
        return "RedisSentinels[" + uri() + "]";
    }
}

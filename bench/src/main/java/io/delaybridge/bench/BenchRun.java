package io.delaybridge.bench;

import io.delaybridge.testkit.FreePorts;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.TopicConfig;

/**
 * One pass of the benchmark against one Redis (the single server, or the cluster): what every scenario shares. The
 * broker and Redis it runs on, its topics and bridges, the readings of Redis and of the processes' CPU, and the
 * result lines it collects ({@link #put}).
 */
final class BenchRun implements AutoCloseable {

    static final int INTAKE_PARTITIONS = 16;
    static final int TARGET_PARTITIONS = 8;

    final BenchOptions options;
    final String bootstrap;
    final BenchRedis target;
    final Path workDir;
    final String runId = Long.toString(System.currentTimeMillis() % 1_000_000, 36);
    private final long brokerPid;
    private final Admin admin;
    /** The readings of the servers that hold data (the masters of a cluster). */
    private final BenchServers servers;

    private final Map<String, String> summary = new LinkedHashMap<>();
    /** The next record's sequence number: unique over the run, so the collector tells phases' records apart. */
    private long seq;

    BenchRun(BenchOptions options, String bootstrap, BenchRedis target, Path workDir, long brokerPid) {
        this.options = options;
        this.bootstrap = bootstrap;
        this.target = target;
        this.workDir = workDir;
        this.brokerPid = brokerPid;
        this.admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap));
        this.servers = new BenchServers(target.servers());
    }

    /** The result lines so far, in order. */
    Map<String, String> summary() {
        return summary;
    }

    /** The first server that holds data (the single server). */
    RedisCommands<String, String> redis() {
        return servers.first();
    }

    String redisUri() {
        return target.uri();
    }

    long redisPid() {
        return target.pids().getOrDefault("redis", 0L);
    }

    /** Reserves {@code n} sequence numbers; returns the first. */
    synchronized long nextSeq(long n) {
        long first = seq;
        seq += n;
        return first;
    }

    /** A result line, prefixed with this pass' label, with the machine's load average. */
    void put(String key, String format, Object... args) {
        String value = String.format(format, args) + " [load " + loadAverage() + "]";
        key = target.label() + key;
        summary.put(key, value);
        log("%s: %s", key, value);
    }

    /** A result line without the load average (e.g. a path's name). */
    void putPlain(String key, String value) {
        summary.put(target.label() + key, value);
    }

    /** intake (16 partitions), target (8), deadletter (1); intake and target stamp LogAppendTime. */
    String[] createTopics(String name, int count) throws Exception {
        String[] names = {name + "-intake-" + runId, name + "-target-" + runId, name + "-dead-" + runId};
        List<NewTopic> topics = new ArrayList<>();
        Map<String, String> logAppend = Map.of(TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG, "LogAppendTime");
        topics.add(new NewTopic(names[0], INTAKE_PARTITIONS, (short) 1).configs(logAppend));
        if (count > 1) {
            topics.add(new NewTopic(names[1], TARGET_PARTITIONS, (short) 1).configs(logAppend));
            topics.add(new NewTopic(names[2], 1, (short) 1));
        }
        admin.createTopics(topics).all().get(60, TimeUnit.SECONDS);
        List<String> created = topics.stream().map(NewTopic::name).toList();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) { // producers fail over to retries while leaders are still elected
            try {
                boolean ready =
                        admin.describeTopics(created).allTopicNames().get(10, TimeUnit.SECONDS).values().stream()
                                .allMatch(t -> t.partitions().stream()
                                        .allMatch(p -> p.leader() != null
                                                && !p.leader().isEmpty()));
                if (ready) {
                    break;
                }
            } catch (ExecutionException e) {
                // not known yet
            }
            Thread.sleep(100);
        }
        Thread.sleep(1_000);
        return names;
    }

    /**
     * The bridge as shipped: its fat jar, with its JVM options ({@code --bridge-options}) and its CDS archive ({@code
     * --bridge-cds}) where there is one.
     */
    BridgeProcess startBridge(String name, String[] topics) throws Exception {
        return startBridge(name, topics, false);
    }

    /** The bridge as shipped, with {@code delivery.exactlyOnce} as given ({@code DELAY_EXACTLY_ONCE}). */
    BridgeProcess startBridge(String name, String[] topics, boolean exactlyOnce) throws Exception {
        return startBridge(name, topics, options.bridgeJar, shippedJvm(), exactlyOnce, Map.of());
    }

    /**
     * The bridge as shipped, with {@code extraEnv} on top of the bench's settings (e.g. {@code DELAY_HOT_WINDOW});
     * started again under the same {@code name} it keeps its group and key prefix (a restart).
     */
    BridgeProcess startBridge(String name, String[] topics, Map<String, String> extraEnv) throws Exception {
        return startBridge(name, topics, options.bridgeJar, shippedJvm(), false, extraEnv);
    }

    /** As {@link #startBridge(String, String[])} from {@code jar}, with {@code extraJvm} after the bridge's options. */
    BridgeProcess startBridge(String name, String[] topics, Path jar, List<String> extraJvm) throws Exception {
        return startBridge(name, topics, jar, extraJvm, false, Map.of());
    }

    /** As above, with {@code delivery.exactlyOnce} as given. */
    BridgeProcess startBridge(String name, String[] topics, Path jar, List<String> extraJvm, boolean exactlyOnce)
            throws Exception {
        return startBridge(name, topics, jar, extraJvm, exactlyOnce, Map.of());
    }

    /**
     * The JVM options a bridge is shipped with, after {@code --bridge-jvm}: its argument file ({@code --bridge-options},
     * {@code @file} as README starts it) and its CDS archive ({@code --bridge-cds}), each where the file exists.
     */
    List<String> shippedJvm() {
        List<String> jvm = new ArrayList<>();
        if (options.bridgeOptions != null) {
            if (!Files.isRegularFile(options.bridgeOptions)) {
                throw new IllegalArgumentException("--bridge-options: no file " + options.bridgeOptions.toAbsolutePath()
                        + "; give the bridge's jvm.options, or none");
            }
            jvm.add("@" + options.bridgeOptions.toAbsolutePath());
        }
        if (Files.isRegularFile(options.bridgeCds)) {
            jvm.add("-XX:SharedArchiveFile=" + options.bridgeCds.toAbsolutePath());
        }
        return jvm;
    }

    private BridgeProcess startBridge(
            String name,
            String[] topics,
            Path jar,
            List<String> extraJvm,
            boolean exactlyOnce,
            Map<String, String> extraEnv)
            throws Exception {
        int adminPort = FreePorts.pick();
        Map<String, String> env = new LinkedHashMap<>();
        env.put("KAFKA_BOOTSTRAP_SERVERS", bootstrap);
        env.put("REDIS_URI", target.uri());
        env.put("DELAY_INTAKE_TOPIC", topics[0]);
        env.put("DELAY_DEADLETTER_TOPIC", topics[2]);
        env.put("DELAY_GROUP_ID", "bridge-" + name + "-" + runId);
        env.put("DELAY_KEY_PREFIX", keyPrefix(name));
        env.put("DELAY_HTTP_PORT", Integer.toString(FreePorts.pick()));
        env.put("DELAY_ADMIN_PORT", Integer.toString(adminPort));
        env.put("DELAY_EXACTLY_ONCE", Boolean.toString(exactlyOnce));
        env.putAll(extraEnv);
        String instance = extraEnv.getOrDefault("DELAY_INSTANCE_ID", "");
        Path log = workDir.resolve("bridge-" + target.label().replace(' ', '-') + name
                + (instance.isEmpty() ? "" : "-" + instance) + ".log");
        List<String> jvm = new ArrayList<>(options.bridgeJvm);
        jvm.addAll(extraJvm);
        BridgeProcess bridge = BridgeProcess.start(jar, options.bridgeConfig, log, jvm, env, adminPort);
        log(
                "bridge for %s: pid %d, JVM %s, %slog %s",
                name, bridge.pid(), jvm, extraEnv.isEmpty() ? "" : extraEnv + ", ", log);
        return bridge;
    }

    String keyPrefix(String scenario) {
        return "b" + scenario + runId;
    }

    /** Preloads {@code n} records, due now, into {@code topics[0]} for {@code topics[1]}: their Stats. */
    Stats preloaded(String name, String[] topics, int n, int phase) {
        return preloaded(name, topics, n, phase, null);
    }

    /** As {@link #preloaded(String, String[], int, int)}, the due time in {@code dueHeader} too (null for none). */
    Stats preloaded(String name, String[] topics, int n, int phase, String dueHeader) {
        Stats stats = new Stats(name, seq, n);
        preload(topics[0], topics[1], n, phase, dueHeader);
        return stats;
    }

    /** Writes n records, all due now, as fast as the producer goes; returns records/s. */
    long preload(String intake, String target, int n, int phase) {
        return preload(intake, target, n, phase, null);
    }

    private long preload(String intake, String target, int n, int phase, String dueHeader) {
        try (Load load = new Load(bootstrap, dueHeader)) {
            long start = System.nanoTime();
            long now = System.currentTimeMillis();
            long first = nextSeq(n);
            for (int i = 0; i < n; i++) {
                load.send(intake, null, target, now, first + i, phase);
            }
            load.flush();
            return (long) (n / seconds(start));
        }
    }

    /** The bridge (if any), Redis and the broker when this run started them, and this JVM (load and collector). */
    CpuMeter cpuMeter(long bridgePid) {
        return cpuMeter("bridge", bridgePid);
    }

    /** As {@link #cpuMeter(long)} with another child process in the bridge's place: {@code label} names it. */
    CpuMeter cpuMeter(String label, long pid) {
        CpuMeter meter = new CpuMeter().process(label, pid);
        target.pids().forEach(meter::process);
        return meter.process("broker", brokerPid)
                .process("bench JVM", ProcessHandle.current().pid());
    }

    /** As {@link #cpuMeter(long)} for a bridge, with the rates of its intake's stored polls and offset commits. */
    CpuMeter cpuMeter(BridgeProcess bridge) {
        return cpuMeter(bridge.pid())
                .counter("intake polls stored", () -> bridge.meterCount("delay.intake.batches"))
                .counter("intake commits", () -> bridge.meterCount("delay.intake.commits"));
    }

    /** Microseconds Redis spent in each command so far, summed over the servers ({@link BenchServers}). */
    Map<String, Long> commandMicros() {
        return servers.commandMicros();
    }

    /** {@link BenchServers#commandCost}. */
    static String commandCost(Map<String, Long> before, Map<String, Long> after, long records) {
        return BenchServers.commandCost(before, after, records);
    }

    long usedMemory() {
        return servers.usedMemory();
    }

    long pending(String prefix, String topic) {
        return servers.pending(prefix, topic);
    }

    long farCount(String prefix, String topic) {
        return servers.farCount(prefix, topic);
    }

    long deleteKeys(String prefix) {
        return servers.deleteKeys(prefix);
    }

    /** Waits until every record of the phase arrived, or nothing arrived for {@code idleSeconds}. */
    static void awaitDelivered(Stats stats, int idleSeconds) throws InterruptedException {
        long last = -1;
        long lastChange = System.nanoTime();
        long lastLog = System.nanoTime();
        while (stats.count() < stats.expected) {
            long count = stats.count();
            if (count != last) {
                last = count;
                lastChange = System.nanoTime();
            } else if (System.nanoTime() - lastChange > TimeUnit.SECONDS.toNanos(idleSeconds)) {
                log(
                        "  %s: gave up, %,d of %,d arrived and nothing for %d s",
                        stats.name, count, stats.expected, idleSeconds);
                return;
            }
            if (System.nanoTime() - lastLog > TimeUnit.SECONDS.toNanos(10)) {
                log("  %s: %,d of %,d delivered", stats.name, count, stats.expected);
                lastLog = System.nanoTime();
            }
            Thread.sleep(100);
        }
    }

    /** Records per second from {@code startMillis} to the last delivery (broker time). */
    static double drainRate(Stats stats, long startMillis) {
        long lastMillis;
        synchronized (stats) {
            lastMillis = stats.lastDelivered;
        }
        return stats.count() * 1000.0 / Math.max(1, lastMillis - startMillis);
    }

    static double seconds(long startNanos) {
        return (System.nanoTime() - startNanos) / 1e9;
    }

    static void sleepUntil(long epochMillis) {
        long wait = epochMillis - System.currentTimeMillis();
        if (wait > 0) {
            try {
                Thread.sleep(wait);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    static void log(String format, Object... args) {
        System.out.printf("[%s] %s%n", Instant.now().toString().substring(11, 23), String.format(format, args));
        System.out.flush();
    }

    /** The machine is shared: the 1-minute load average says how much else ran. */
    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        } catch (IOException e) {
            return "?";
        }
    }

    @Override
    public void close() {
        servers.close();
        admin.close();
    }
}

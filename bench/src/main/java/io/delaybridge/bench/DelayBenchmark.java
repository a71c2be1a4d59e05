package io.delaybridge.bench;

import io.delaybridge.bridge.store.ClaimBatch;
import io.delaybridge.bridge.store.ClaimedMessage;
import io.delaybridge.bridge.store.MessageRef;
import io.delaybridge.bridge.store.WriteOp;
import io.delaybridge.bridge.store.redis.RedisDelayStore;
import io.delaybridge.bridge.store.redis.RedisStoreOptions;
import io.delaybridge.testkit.KafkaBroker;
import io.delaybridge.testkit.RedisCluster;
import io.delaybridge.testkit.RedisServer;
import io.delaybridge.testkit.TempDirs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.IntToLongFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.TopicConfig;

/**
 * The end-to-end benchmark: the bridge against a plain Kafka copy, on the same broker and Redis, in one run.
 *
 * <pre>
 * ./bench.sh                                   # every scenario, default sizes
 * ./bench.sh --scenario steady --steady-rate 5000 --steady-seconds 120
 * java -cp bench/target/... io.delaybridge.bench.DelayBenchmark --scenario throughput,burst --records 2000000
 * </pre>
 *
 * Scenarios: {@code limits} (producer to one topic, the store's schedule and claim paths), {@code throughput}
 * (plain copy vs bridge draining the same backlog of due records), {@code steady} (a constant due rate with delays
 * spread over minutes: lateness), {@code saturation} (rising due rates: where lateness grows), {@code burst} (N records
 * due at one instant), {@code backlog} (N pending records: Redis memory per record, lateness on top of it).
 * A broker and a Redis (AOF, fsync always: the shipped default) start as child processes unless
 * {@code KAFKA_BOOTSTRAP_SERVERS} / {@code REDIS_URI} are set. The bridge runs as a child JVM from its fat jar.
 * {@code --redis single,cluster} runs throughput and steady once more against a Redis Cluster of three masters
 * started for it, and prints each of its result lines (CPU per record per process among them) under its
 * single-server twin.
 */
public final class DelayBenchmark {

    private static final Pattern COMMAND_STAT = Pattern.compile("cmdstat_(\\w+):calls=(\\d+),usec=(\\d+)");

    private static final int INTAKE_PARTITIONS = 16;
    private static final int TARGET_PARTITIONS = 8;

    final Options options;
    final String bootstrap;
    private final String redisUri;
    private final BenchRedis target;
    private final Admin admin;
    private final RedisClient redisClient;
    private final StatefulRedisConnection<String, String> redisConnection;
    private final RedisCommands<String, String> redis;
    /** One connection to each server that holds data (the masters of a cluster); the first is {@code redis}. */
    private final List<RedisCommands<String, String>> servers = new ArrayList<>();
    private final List<StatefulRedisConnection<String, String>> serverConnections = new ArrayList<>();
    private final Path workDir;
    final String runId = Long.toString(System.currentTimeMillis() % 1_000_000, 36);
    private final Map<String, String> summary = new LinkedHashMap<>();
    private final List<double[]> sweep = new ArrayList<>(); // rate, p50, p99, p99.9, max, delivered rate
    private long seq;
    private final long brokerPid;
    private final long redisPid;

    private DelayBenchmark(Options options, String bootstrap, BenchRedis target, Path workDir, long brokerPid) {
        this.options = options;
        this.brokerPid = brokerPid;
        this.target = target;
        this.redisPid = target.pids().getOrDefault("redis", 0L);
        this.bootstrap = bootstrap;
        this.redisUri = target.uri();
        this.workDir = workDir;
        this.admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap));
        this.redisClient = RedisClient.create();
        for (String server : target.servers()) {
            StatefulRedisConnection<String, String> connection = redisClient.connect(RedisURI.create(server));
            serverConnections.add(connection);
            servers.add(connection.sync());
        }
        this.redisConnection = serverConnections.get(0);
        this.redis = redisConnection.sync();
    }

    public static void main(String[] args) throws Exception {
        Options options = Options.parse(args);
        Path workDir = Files.createTempDirectory("delay-bench-");
        String kafkaEnv = System.getenv("KAFKA_BOOTSTRAP_SERVERS");
        String redisEnv = System.getenv("REDIS_URI");
        KafkaBroker broker = null;
        RedisServer redisServer = null;
        try {
            if (kafkaEnv == null || kafkaEnv.isBlank()) {
                broker = KafkaBroker.start(workDir.resolve("kafka"));
            }
            if (redisEnv == null || redisEnv.isBlank()) {
                redisServer = RedisServer.start(workDir.resolve("redis"));
            }
            String bootstrap = broker != null ? broker.bootstrapServers() : kafkaEnv;
            String redisUri = redisServer != null ? redisServer.uri() : redisEnv;
            log("broker %s%s, redis %s%s (%s), work dir %s", bootstrap, broker != null ? " (child, pid " + broker.pid()
                    + ")" : "", redisUri, redisServer != null ? " (child, pid " + redisServer.pid() + ")" : "",
                    redisServer != null ? "redis " + redisServer.version() : "external", workDir);
            long brokerPid = broker != null ? broker.pid() : 0;
            Map<String, String> results = new DelayBenchmark(options, bootstrap,
                    BenchRedis.single(redisUri, redisServer != null ? redisServer.pid() : 0), workDir, brokerPid).run();
            if (options.get("redis", "single").equals("single,cluster")) {
                results.putAll(clusterPass(options, bootstrap, workDir, brokerPid));
            } else if (!options.get("redis", "single").equals("single")) {
                throw new IllegalArgumentException("--redis " + options.get("redis", "") + ": use single (the "
                        + "default) or single,cluster (then throughput and steady also run on a 3-master cluster)");
            }
            printResults(options, results);
        } finally {
            if (broker != null) {
                broker.close();
            }
            if (redisServer != null) {
                redisServer.close();
            }
            // a full run leaves ~5 GB of broker log and AOF behind: runs would fill the disk
            if (Boolean.parseBoolean(options.get("keep-work-dir", "false"))) {
                log("work dir kept: %s", workDir);
            } else {
                TempDirs.deleteRecursively(workDir);
            }
        }
    }

    /**
     * Throughput and steady once more against a Redis Cluster of three masters (no replicas, each durable as the
     * single server: AOF, fsync always), started for it; their result lines start with "cluster ".
     */
    private static Map<String, String> clusterPass(Options options, String bootstrap, Path workDir, long brokerPid)
            throws Exception {
        try (RedisCluster cluster = RedisCluster.start(workDir.resolve("cluster"), 3, 0)) {
            Map<String, Long> pids = new LinkedHashMap<>();
            List<RedisServer> masters = cluster.masters();
            for (int i = 0; i < masters.size(); i++) {
                pids.put("redis-" + (i + 1), masters.get(i).pid());
            }
            log("cluster pass: %s (masters' pids %s)", cluster.uri(), pids.values());
            Options only = options.withScenarios(options.chosen().stream()
                    .filter(s -> s.equals("throughput") || s.equals("steady")).toList());
            BenchRedis target = new BenchRedis("cluster ", cluster.uri(),
                    masters.stream().map(RedisServer::uri).toList(), pids);
            return new DelayBenchmark(only, bootstrap, target, workDir, brokerPid).run();
        }
    }

    /** The summary; a line of the cluster pass right under its single-server twin, so they read side by side. */
    private static void printResults(Options options, Map<String, String> results) throws IOException {
        System.out.println();
        System.out.println("## Results (" + Instant.now() + ")");
        results.forEach((k, v) -> {
            if (!k.startsWith("cluster ") || !results.containsKey(k.substring("cluster ".length()))) {
                System.out.println("- " + k + ": " + v);
            }
            if (results.containsKey("cluster " + k)) {
                System.out.println("- cluster " + k + ": " + results.get("cluster " + k));
            }
        });
    }

    private Map<String, String> run() throws Exception {
        log("machine: %d cores, %s; options %s", Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.version"), options);
        summary.put(target.label() + "redis", redis.info("server").lines()
                .filter(l -> l.startsWith("redis_version")).findFirst().orElse("?") + ", "
                + redis.configGet("appendfsync") + (target.servers().size() > 1
                        ? ", " + target.servers().size() + " masters: " + target.uri() : ""));
        scenario("limits", this::limits);
        scenario("throughput", this::throughput);
        scenario("catch-up", () -> new CatchUpScenario(this).run());
        scenario("steady", this::steady);
        scenario("saturation", this::saturation);
        scenario("burst", this::burst);
        scenario("backlog", this::backlog);
        scenario("layouts", this::layouts);
        if (target.label().isEmpty()) { // the rules write to Kafka only: once per run, not once per Redis
            scenario("rules", () -> RuleThroughput.measure(bootstrap, options.intOf("rule-records", 200_000), runId,
                    workDir).forEach((k, v) -> put(k, "%s", v)));
        }
        if (!sweep.isEmpty()) {
            // outside the repository unless asked: a short trial run used to overwrite the documented plot
            Path svg = Path.of(options.get("svg",
                    Path.of(System.getProperty("java.io.tmpdir"), "delay-bench-lateness.svg").toString()));
            Files.createDirectories(svg.toAbsolutePath().getParent());
            Files.writeString(svg, LatenessPlot.svg(sweep));
            summary.put("plot", svg.toString());
        }
        serverConnections.forEach(StatefulRedisConnection::close);
        redisClient.shutdown();
        admin.close();
        return summary;
    }

    private interface Scenario {
        void run() throws Exception;
    }

    /** Runs one scenario if chosen; a failure is reported and the next scenario still runs. */
    private void scenario(String name, Scenario scenario) {
        if (!options.has(name)) {
            return;
        }
        try {
            scenario.run();
        } catch (Exception e) {
            put(name + ": FAILED", "%s", e);
            e.printStackTrace(System.out);
        }
    }

    // ------------------------------------------------------------------------------------------------- limits

    private void limits() throws Exception {
        String topic = createTopics("limit", 1)[0];
        int n = options.intOf("records", 1_000_000);
        try (Load load = new Load(bootstrap)) {
            long start = System.nanoTime();
            long now = System.currentTimeMillis();
            for (int i = 0; i < n; i++) {
                load.send(topic, null, "nowhere", now, seq + i, 0);
            }
            load.flush();
            seq += n;
            double rate = n / seconds(start);
            put("limit: producer to one topic (" + INTAKE_PARTITIONS + " partitions, bridge producer settings)",
                    "%,.0f records/s (%,d records of %d bytes)", rate, n, Load.VALUE_BYTES);
        }
        int claimRecords = options.intOf("claim-records", 200_000);
        claimPath(claimRecords, 0);
        // the same again beside messages that are not due: what a backlog costs the claims
        claimPath(claimRecords, options.intOf("claim-backlog", 1_000_000));
    }

    /**
     * The store's own write and claim paths, driven directly, on one shard: what Redis gives the bridge. With a
     * backlog, that many messages due in 6 hours are stored in the shard first, and stay there.
     */
    private void claimPath(int n, int backlog) throws Exception {
        String topic = "probe" + runId + "b" + backlog;
        String keyPrefix = "bp" + runId + "b" + backlog;
        String beside = backlog == 0 ? "" : String.format(", beside %,d not due", backlog);
        try {
            claimPath(n, backlog, topic, keyPrefix, beside);
        } finally {
            StoreLayouts.deleteKeys(redis, keyPrefix + ":*");
        }
    }

    private void claimPath(int n, int backlog, String topic, String keyPrefix, String beside) throws Exception {
        try (RedisDelayStore store = RedisDelayStore.connect(
                RedisStoreOptions.of(redisUri, topic, 1).withKeyPrefix(keyPrefix)
                        .withCommandTimeout(java.time.Duration.ofSeconds(60)))) {
            byte[] envelope = new byte[Load.VALUE_BYTES + 40];
            new Random(1).nextBytes(envelope);
            long due = store.now();
            long later = due + TimeUnit.HOURS.toMillis(6);
            schedule(store, topic, n, n + backlog, i -> later, envelope);
            long start = System.nanoTime();
            schedule(store, topic, 0, n, i -> due, envelope);
            put("limit: store schedule path (schedule.lua, batches of 1,000, 4 in flight, fsync always" + beside + ")",
                    "%,.0f records/s", n / seconds(start));
            long epoch = store.acquire(0);
            int batch = options.intOf("batch", 500);
            CpuMeter cpu = new CpuMeter().process("redis", redisPid).start();
            Map<String, Long> commandsBefore = commandMicros();
            start = System.nanoTime();
            long claimed = 0;
            while (true) {
                ClaimBatch claim = store.claim(0, epoch, batch, 30_000);
                if (claim.messages().isEmpty()) {
                    break;
                }
                List<MessageRef> refs = new ArrayList<>(claim.messages().size());
                for (ClaimedMessage m : claim.messages()) {
                    refs.add(m.ref());
                }
                store.ack(0, epoch, refs);
                claimed += refs.size();
            }
            double rate = claimed / seconds(start);
            put("limit: store claim + ack path (claim.lua + ack.lua, batches of " + batch + ", one caller" + beside + ")",
                    "%,.0f records/s (%,d records); %s; %s", rate, claimed, cpu.perRecord(claimed),
                    commandCost(commandsBefore, commandMicros(), claimed));
        }
    }

    /** Stores the messages of offsets from..to (default ids, shard 0), 1,000 a batch, 4 batches in flight. */
    static void schedule(RedisDelayStore store, String topic, int from, int to, IntToLongFunction dueAt,
            byte[] envelope) throws Exception {
        Deque<CompletableFuture<?>> inFlight = new ArrayDeque<>();
        for (int first = from; first < to; first += 1_000) {
            List<WriteOp> ops = new ArrayList<>(1_000);
            for (int i = first; i < Math.min(to, first + 1_000); i++) {
                ops.add(new WriteOp.Schedule(topic + "-0-" + i, dueAt.applyAsLong(i), topic + "/0/" + i, envelope));
            }
            inFlight.add(store.write(ops));
            if (inFlight.size() >= 4) {
                inFlight.poll().get(60, TimeUnit.SECONDS);
            }
        }
        for (CompletableFuture<?> f : inFlight) {
            f.get(60, TimeUnit.SECONDS);
        }
    }

    // --------------------------------------------------------------------------------------------- throughput

    private void throughput() throws Exception {
        int n = options.intOf("records", 1_000_000);
        // Each copy is measured over several consecutive windows of n records in the same drain, and the median
        // window counts: on this shared machine one window of the same build moved by +-10 % between runs (the
        // hypervisor's steal time came and went), and the spread says how far a single figure can be trusted.
        int windows = options.intOf("windows", 3);
        // Both copies first work through a warm-up of their own, measured apart: a fresh JVM spends its first tens of
        // seconds compiling (the bridge's C2 thread took a third of its CPU in a 1.5M-record drain), and a service
        // runs for days. The warm-up records come first in the same intake, so the measured ones follow at once.
        // 2,000,000: after 500,000 (~20 s) the bridge still compiled ~100 methods a second (-XX:+PrintCompilation),
        // and both copies measured ~1.5x their settled CPU per record.
        int warmup = options.intOf("warmup", 2_000_000);
        String[] copyTopics = createTopics("copy", 3);
        Stats copyWarm = new Stats("plain copy warm-up", seq, warmup);
        preload(copyTopics[0], copyTopics[1], warmup, 5);
        Preloaded copyLoad = preloadWindows(copyTopics, n, windows, COPY_WINDOW_PHASE, "plain copy");
        List<Stats> copyWindows = copyLoad.windows();
        Windows copy;
        try (Collector collector = new Collector(bootstrap, List.of(copyTopics[1]))) {
            collector.register(5, copyWarm);
            registerWindows(collector, copyWindows, COPY_WINDOW_PHASE);
            try (PlainCopy plainCopy = new PlainCopy(bootstrap, copyTopics[0], "copy" + runId)) {
                awaitDelivered(copyWarm, 300);
                copy = measureWindows(copyWindows, cpuMeter(0), 300);
            }
        }
        put("throughput: preload (producer to the intake, 16 partitions, with delay headers)",
                "%,d records/s", copyLoad.firstRate());
        put("throughput: plain Kafka copy (baseline)", "%,.0f records/s steady, median of %s (%,d of %,d copied, "
                + "after %,d warm-up records at %,.0f/s)", copy.medianRate(), copy.rates(), copy.count(), n * windows,
                warmup, copyWarm.steadyRate());
        put("throughput: plain Kafka copy, CPU", "%s", copy.cpu());

        // the bridge: the same records, all due, in a preloaded intake, behind its own warm-up
        String[] topics = createTopics("thru", 3);
        Stats bridgeWarm = new Stats("bridge warm-up", seq, warmup);
        preload(topics[0], topics[1], warmup, 6);
        List<Stats> bridgeWindows = preloadWindows(topics, n, windows, BRIDGE_WINDOW_PHASE, "bridge").windows();
        try (Collector collector = new Collector(bootstrap, List.of(topics[1]));
                BridgeProcess bridge = startBridge("thru", topics)) {
            collector.register(6, bridgeWarm);
            registerWindows(collector, bridgeWindows, BRIDGE_WINDOW_PHASE);
            awaitDelivered(bridgeWarm, 600);
            bridge.resetPeaks();
            Map<String, Long> commandsBefore = commandMicros();
            Windows thru = measureWindows(bridgeWindows, cpuMeter(bridge), 600);
            String redisCommands = commandCost(commandsBefore, commandMicros(), thru.count());
            put("throughput: bridge end to end (intake -> Redis -> pump -> target)",
                    "%,.0f records/s steady, median of %s (%,d of %,d delivered, %d early, %d duplicates, after %,d "
                            + "warm-up records at %,.0f/s); bridge peak RSS %d MB, peak heap %d MB", thru.medianRate(),
                    thru.rates(), thru.count(), n * windows, thru.early(), thru.duplicates(), warmup,
                    bridgeWarm.steadyRate(), bridge.maxRssMb(), bridge.maxHeapMb());
            put("throughput: bridge end to end, CPU", "%s", thru.cpu());
            put("throughput: bridge end to end, Redis commands", "%s", redisCommands);
            put("throughput: bridge / plain copy", "%.2f (medians)", thru.medianRate() / copy.medianRate());
        }
    }

    /** The Collector's phases of the throughput windows: the plain copy's from 60, the bridge's from 80. */
    private static final int COPY_WINDOW_PHASE = 60;
    private static final int BRIDGE_WINDOW_PHASE = 80;

    /** Windows written to an intake, and the producer's records/s for the first of them. */
    private record Preloaded(List<Stats> windows, long firstRate) { }

    /** Writes {@code count} windows of n records, window i under phase {@code firstPhase + i}. */
    private Preloaded preloadWindows(String[] topics, int n, int count, int firstPhase, String name) {
        List<Stats> windows = new ArrayList<>(count);
        long firstRate = 0;
        for (int i = 0; i < count; i++) {
            long rate = preload(topics[0], topics[1], n, firstPhase + i);
            firstRate = i == 0 ? rate : firstRate;
            windows.add(new Stats(name, seq - n, n));
        }
        return new Preloaded(windows, firstRate);
    }

    private static void registerWindows(Collector collector, List<Stats> windows, int firstPhase) {
        for (int i = 0; i < windows.size(); i++) {
            collector.register(firstPhase + i, windows.get(i));
        }
    }

    /** Waits for the windows in order; the CPU line covers them all. */
    private static Windows measureWindows(List<Stats> windows, CpuMeter cpu, int idleSeconds)
            throws InterruptedException {
        cpu.start();
        for (Stats window : windows) {
            awaitDelivered(window, idleSeconds);
        }
        return new Windows(windows, cpu.perRecord(windows.stream().mapToLong(Stats::count).sum()));
    }

    /** Consecutive measured windows of one drain: each window's steady rate, and CPU per record over all of them. */
    private record Windows(List<Stats> windows, String cpu) {

        double medianRate() {
            double[] rates = windows.stream().mapToDouble(Stats::steadyRate).sorted().toArray();
            return rates.length % 2 == 1 ? rates[rates.length / 2]
                    : (rates[rates.length / 2 - 1] + rates[rates.length / 2]) / 2;
        }

        /** "3 windows of 1,000,000: 42,083 / 44,768 / 47,619 records/s" in window order. */
        String rates() {
            return String.format("%d windows of %,d: %s records/s", windows.size(), windows.get(0).expected,
                    windows.stream().map(w -> String.format("%,.0f", w.steadyRate()))
                            .collect(java.util.stream.Collectors.joining(" / ")));
        }

        long count() {
            return windows.stream().mapToLong(Stats::count).sum();
        }

        long early() {
            return windows.stream().mapToLong(w -> w.early).sum();
        }

        long duplicates() {
            return windows.stream().mapToLong(w -> w.duplicates).sum();
        }
    }

    /** Writes n records, all due now, as fast as the producer goes; returns records/s. */
    /** Preloads {@code n} records, due now, into {@code topics[0]} for {@code topics[1]}: their Stats. */
    Stats preloaded(String name, String[] topics, int n, int phase) {
        Stats stats = new Stats(name, seq, n);
        preload(topics[0], topics[1], n, phase);
        return stats;
    }

    long preload(String intake, String target, int n, int phase) {
        try (Load load = new Load(bootstrap)) {
            long start = System.nanoTime();
            long now = System.currentTimeMillis();
            for (int i = 0; i < n; i++) {
                load.send(intake, null, target, now, seq + i, phase);
            }
            load.flush();
            seq += n;
            return (long) (n / seconds(start));
        }
    }

    // ------------------------------------------------------------------------------------ steady, saturation

    private void steady() throws Exception {
        int rate = options.intOf("steady-rate", 5_000);
        int window = options.intOf("steady-seconds", 60);
        int minDelay = options.intOf("min-delay-s", 1);
        int maxDelay = options.intOf("max-delay-s", 120);
        String[] topics = createTopics("steady", 3);
        try (Collector collector = new Collector(bootstrap, List.of(topics[1]));
                BridgeProcess bridge = startBridge("steady", topics)) {
            bridge.resetPeaks();
            String prefix = keyPrefix("steady");
            long usedBefore = usedMemory();
            Runnable memoryAtWindowEnd = () -> {
                long pending = pending(prefix, topics[0]);
                long used = usedMemory();
                put("steady: Redis memory per pending record (sampled at the end of the window)",
                        "%,d B (%,d pending, used_memory grew by %,d B)", pending == 0 ? 0 : (used - usedBefore)
                                / pending, pending, used - usedBefore);
            };
            SteadyWindow run = steadyRun(collector, topics, rate, minDelay, maxDelay, window, firstWarmupSeconds(), 10,
                    cpuMeter(bridge), memoryAtWindowEnd);
            String name = "steady: " + rate + " records/s due, delays " + minDelay + "-" + maxDelay + " s, " + window
                    + " s measured";
            put(name, "%s; bridge peak RSS %d MB, peak heap %d MB", run.stats().latenessLine(), bridge.maxRssMb(),
                    bridge.maxHeapMb());
            put(name + ", CPU", "%s", run.cpu());
        }
    }

    /**
     * The warm-up of a fresh bridge's first steady run ({@code --steady-warmup-s}, default 120): the bridge, the broker
     * and this JVM compile for their first one to two minutes, on the same two cores. At 5,000/s the tail measured
     * after 40 s was p99 33-42 ms, after 100-150 s 16-19 ms (2026-11-23, docs/benchmarks.md).
     */
    private int firstWarmupSeconds() {
        return options.intOf("steady-warmup-s", 120);
    }

    /** The warm-up of a steady run on a bridge that has already run ({@code --step-warmup-s}, default 40). */
    private int stepWarmupSeconds() {
        return options.intOf("step-warmup-s", 40);
    }

    private void saturation() throws Exception {
        String[] topics = createTopics("sat", 3);
        int window = options.intOf("step-seconds", 20);
        try (Collector collector = new Collector(bootstrap, List.of(topics[1]));
                BridgeProcess bridge = startBridge("sat", topics)) {
            int phase = 20;
            int warmup = firstWarmupSeconds(); // the bridge's first step; later steps find it compiled
            for (String r : options.get("rates", "5000,10000,20000,30000,40000,60000").split(",")) {
                int rate = Integer.parseInt(r.trim());
                bridge.resetPeaks();
                SteadyWindow run = steadyRun(collector, topics, rate, 1, 5, window, warmup, phase,
                        cpuMeter(bridge), () -> { });
                Stats stats = run.stats();
                warmup = stepWarmupSeconds();
                phase += 2;
                double delivered = stats.steadyRate();
                sweep.add(new double[] {rate, stats.percentile(0.5), stats.percentile(0.99),
                        stats.percentile(0.999), stats.maxLateness, delivered});
                String name = "saturation: " + rate + " records/s due (delays 1-5 s, " + window + " s)";
                put(name, "%s; bridge peak RSS %d MB, peak heap %d MB", stats.latenessLine(), bridge.maxRssMb(),
                        bridge.maxHeapMb());
                put(name + ", CPU", "%s", run.cpu());
                if (stats.count() < stats.expected || stats.percentile(0.99) > 10_000) {
                    log("lateness p99 above 10 s or records missing at %d records/s: the bridge is saturated", rate);
                    break;
                }
            }
        }
    }

    /**
     * Due times evenly spaced at {@code rate} per second from {@code maxDelay} after the first send; each record sent
     * {@code minDelay..maxDelay} seconds (uniform) before it is due, so the intake runs at {@code rate} too by the
     * time the first record is due. The first {@code warmupSeconds} of due times only warm up. Returns the measured
     * window's figures, and the CPU per due record of every process over the window (records are sent, stored and
     * delivered at the due rate by then).
     */
    private SteadyWindow steadyRun(Collector collector, String[] topics, int rate, int minDelay, int maxDelay,
            int window, int warmupSeconds, int phase, CpuMeter cpu, Runnable atWindowEnd) throws Exception {
        // The first record is due maxDelay after the first send, so no send time falls before the start (which would
        // make a burst of intake): the intake ramps up to the due rate while nothing is due yet, then both run at it.
        long begin = System.currentTimeMillis() + 2_000;
        long firstDue = begin + maxDelay * 1000L;
        long windowStart = firstDue + warmupSeconds * 1000L;
        int warm = (int) ((windowStart - firstDue) * (long) rate / 1000);
        int measured = window * rate;
        int n = warm + measured;
        long[] dueAt = new long[n];
        long[] sendAt = new long[n];
        Random random = new Random(phase);
        for (int i = 0; i < n; i++) {
            dueAt[i] = firstDue + (long) i * 1000 / rate;
            long delay = minDelay * 1000L + (long) (random.nextDouble() * (maxDelay - minDelay) * 1000);
            sendAt[i] = Math.max(begin, dueAt[i] - delay);
        }
        long base = seq;
        seq += n;
        Stats warmStats = new Stats("warm-up", base, warm);
        Stats stats = new Stats("window", base + warm, measured);
        collector.register(phase, warmStats);
        collector.register(phase + 1, stats);
        log("steady run: %,d records/s, delays %d-%d s, %,d warm-up + %,d measured records, window %s .. +%d s",
                rate, minDelay, maxDelay, warm, measured, Instant.ofEpochMilli(windowStart), window);
        // the load sends until near the window's end: the CPU meter starts at the window's start on its own thread
        CompletableFuture<Long> meterStarted = CompletableFuture.supplyAsync(() -> {
            sleepUntil(windowStart);
            cpu.start();
            return System.currentTimeMillis();
        });
        try (Load load = new Load(bootstrap)) {
            load.sendScheduled(topics[0], topics[1], base, dueAt, sendAt, i -> i < warm ? phase : phase + 1);
        }
        long end = windowStart + window * 1000L;
        sleepUntil(end - 500);
        long meteredMillis = System.currentTimeMillis() - meterStarted.get();
        String cpuLine = cpu.perRecord(Math.max(1, meteredMillis * rate / 1000));
        atWindowEnd.run();
        awaitDelivered(stats, 60);
        log("  warm-up: %s", warmStats.latenessLine());
        log("  window:  %s", stats.latenessLine());
        log("  CPU:     %s", cpuLine);
        return new SteadyWindow(stats, cpuLine);
    }

    /** A steady run's measured window: lateness, and CPU per due record over it ({@link CpuMeter#perRecord}). */
    private record SteadyWindow(Stats stats, String cpu) { }

    private static void sleepUntil(long epochMillis) {
        long wait = epochMillis - System.currentTimeMillis();
        if (wait > 0) {
            try {
                Thread.sleep(wait);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    // ------------------------------------------------------------------------------------------------- burst

    private void burst() throws Exception {
        int n = options.intOf("burst", 1_000_000);
        String[] topics = createTopics("burst", 3);
        String prefix = keyPrefix("burst");
        try (Collector collector = new Collector(bootstrap, List.of(topics[1]));
                BridgeProcess bridge = startBridge("burst", topics);
                Load load = new Load(bootstrap)) {
            bridge.resetPeaks();
            int assumedIntake = options.intOf("burst-intake-rate", 20_000);
            long dueAt = System.currentTimeMillis() + 10_000 + n * 1000L / assumedIntake;
            Stats stats = new Stats("burst", seq, n).trackingOrder();
            collector.register(40, stats);
            long start = System.nanoTime();
            for (int i = 0; i < n; i++) {
                load.send(topics[0], i % INTAKE_PARTITIONS, topics[1], dueAt, seq + i, 40);
            }
            load.flush();
            seq += n;
            log("burst: %,d records written to the intake in %.1f s, due at %s", n, seconds(start),
                    Instant.ofEpochMilli(dueAt));
            long pending = 0;
            while (System.currentTimeMillis() < dueAt - 200) {
                pending = pending(prefix, topics[0]);
                if (pending >= n) {
                    break;
                }
                Thread.sleep(200);
            }
            double intakeRate = n / seconds(start);
            put("burst: intake of " + n + " records (produce + bridge stores them)",
                    "%s stored before the due time (%,.0f records/s from the first send until stored)",
                    pending >= n ? "all" : String.format("only %,d of %,d", pending, n), intakeRate);
            awaitDelivered(stats, 600);
            put("burst: " + n + " records due at one instant", "drained at %,.0f records/s steady; %s; "
                    + "out of intake order by > 100 ms: %,d; bridge peak RSS %d MB, peak heap %d MB",
                    stats.steadyRate(), stats.latenessLine(), stats.orderInversions(INTAKE_PARTITIONS, 100),
                    bridge.maxRssMb(), bridge.maxHeapMb());
        }
    }

    // ----------------------------------------------------------------------------------------------- backlog

    private void backlog() throws Exception {
        int n = options.intOf("backlog", 1_000_000);
        String[] topics = createTopics("backlog", 3);
        String prefix = keyPrefix("backlog");
        try (Collector collector = new Collector(bootstrap, List.of(topics[1]));
                BridgeProcess bridge = startBridge("backlog", topics);
                Load load = new Load(bootstrap)) {
            bridge.resetPeaks();
            long usedBefore = usedMemory();
            long dueAt = System.currentTimeMillis() + TimeUnit.HOURS.toMillis(6);
            long start = System.nanoTime();
            for (int i = 0; i < n; i++) {
                load.send(topics[0], null, topics[1], dueAt + (i % 1000), seq + i, 50);
            }
            load.flush();
            seq += n;
            long pending = 0;
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(30);
            while (System.nanoTime() < deadline && (pending = pending(prefix, topics[0])) < n) {
                Thread.sleep(500);
            }
            double intakeRate = n / seconds(start);
            // An AOF rewrite (Redis starts one each time the file doubles) holds a buffer of the writes made meanwhile
            // in used_memory, and its child takes a core: measure memory, and run the steady load, after it.
            if (!RedisInfo.awaitNoAofRewrite(redis, 15, TimeUnit.MINUTES)) {
                log("  an AOF rewrite still runs after 15 minutes; measuring anyway");
            }
            long used = usedMemory();
            put("backlog: " + n + " pending records", "stored at %,.0f records/s; Redis used_memory +%,d B = %,d B "
                    + "per pending record (200-byte values; %,d pending); bridge peak RSS %d MB, peak heap %d MB",
                    intakeRate, used - usedBefore, (used - usedBefore) / Math.max(1, pending), pending,
                    bridge.maxRssMb(), bridge.maxHeapMb());
            bridge.resetPeaks();
            int rate = options.intOf("steady-rate", 5_000);
            // the bridge just stored the backlog: compiled by now
            SteadyWindow run = steadyRun(collector, topics, rate, 1, 5, 20, stepWarmupSeconds(), 51,
                    cpuMeter(bridge), () -> { });
            String name = "backlog: " + rate + " records/s due on top of " + n + " pending (delays 1-5 s, 20 s)";
            put(name, "%s; bridge peak RSS %d MB", run.stats().latenessLine(), bridge.maxRssMb());
            put(name + ", CPU", "%s", run.cpu());
        }
    }

    // ----------------------------------------------------------------------------------------------- layouts

    /** Redis memory per pending message: the store's layout against compact candidates (StoreLayouts). */
    private void layouts() throws Exception {
        int n = options.intOf("layout-records", 200_000);
        // stored values around a benchmark record's (envelope + origin token: ~240 B): the compact layouts' cost
        // moves with the allocator's size class that a bucket of 128 falls in
        for (String size : options.get("layout-value-bytes", "200,240,260").split(",")) {
            int valueBytes = Integer.parseInt(size.trim());
            Map<String, Double> perMessage =
                    new StoreLayouts(redisUri, redis, "lay" + runId + "v" + valueBytes).measure(n, valueBytes);
            perMessage.forEach((layout, bytes) -> put("layouts: " + valueBytes + " B values, " + layout,
                    "%,.0f B per message (overhead %,.0f B; %,d messages)", bytes, bytes - valueBytes, n));
        }
    }

    // --------------------------------------------------------------------------------------------- plumbing

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
                boolean ready = admin.describeTopics(created).allTopicNames().get(10, TimeUnit.SECONDS).values()
                        .stream().allMatch(t -> t.partitions().stream().allMatch(p -> p.leader() != null
                                && !p.leader().isEmpty()));
                if (ready) {
                    break;
                }
            } catch (java.util.concurrent.ExecutionException e) {
                // not known yet
            }
            Thread.sleep(100);
        }
        Thread.sleep(1_000);
        return names;
    }

    BridgeProcess startBridge(String name, String[] topics) throws Exception {
        int http = freePort();
        int adminPort = freePort();
        Map<String, String> env = new LinkedHashMap<>();
        env.put("KAFKA_BOOTSTRAP_SERVERS", bootstrap);
        env.put("REDIS_URI", redisUri);
        env.put("DELAY_INTAKE_TOPIC", topics[0]);
        env.put("DELAY_DEADLETTER_TOPIC", topics[2]);
        env.put("DELAY_GROUP_ID", "bridge-" + name + "-" + runId);
        env.put("DELAY_KEY_PREFIX", keyPrefix(name));
        env.put("DELAY_HTTP_PORT", Integer.toString(http));
        env.put("DELAY_ADMIN_PORT", Integer.toString(adminPort));
        List<String> jvm = List.of(options.get("bridge-jvm", "-Xms128m -Xmx256m -XX:+UseParallelGC").split(" "));
        Path log = workDir.resolve("bridge-" + target.label().replace(' ', '-') + name + ".log");
        BridgeProcess bridge = BridgeProcess.start(Path.of(options.get("bridge-jar", "bridge/target/delay-bridge.jar")),
                Path.of(options.get("bridge-config", "bridge/config.yml")), log, jvm, env, adminPort);
        log("bridge for %s: pid %d, JVM %s, log %s", name, bridge.pid(), jvm, log);
        return bridge;
    }

    private String keyPrefix(String scenario) {
        return "b" + scenario + runId;
    }

    /** The machine is shared: the 1-minute load average says how much else ran. */
    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        } catch (IOException e) {
            return "?";
        }
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
                log("  %s: gave up, %,d of %,d arrived and nothing for %d s", stats.name, count, stats.expected,
                        idleSeconds);
                return;
            }
            if (System.nanoTime() - lastLog > TimeUnit.SECONDS.toNanos(10)) {
                log("  %s: %,d of %,d delivered", stats.name, count, stats.expected);
                lastLog = System.nanoTime();
            }
            Thread.sleep(100);
        }
    }

    /** The bridge (if any), Redis and the broker when this run started them, and this JVM (load and collector). */
    private CpuMeter cpuMeter(long bridgePid) {
        CpuMeter meter = new CpuMeter().process("bridge", bridgePid);
        target.pids().forEach(meter::process);
        return meter.process("broker", brokerPid).process("bench JVM", ProcessHandle.current().pid());
    }

    /** As {@link #cpuMeter(long)} for a bridge, with the rates of its intake's stored polls and offset commits. */
    private CpuMeter cpuMeter(BridgeProcess bridge) {
        return cpuMeter(bridge.pid()).counter("intake polls stored", () -> bridge.meterCount("delay.intake.batches"))
                .counter("intake commits", () -> bridge.meterCount("delay.intake.commits"));
    }

    /**
     * Microseconds Redis spent in each command so far ({@code INFO commandstats}; commands a script runs count too),
     * summed over the servers that hold data.
     */
    private Map<String, Long> commandMicros() {
        Map<String, Long> micros = new java.util.TreeMap<>();
        for (RedisCommands<String, String> server : servers) {
            Matcher m = COMMAND_STAT.matcher(server.info("commandstats"));
            while (m.find()) {
                micros.merge(m.group(1), Long.parseLong(m.group(3)), Long::sum);
                micros.merge(m.group(1) + " calls", Long.parseLong(m.group(2)), Long::sum);
            }
        }
        return micros;
    }

    /** "evalsha 14.2 (of it hmget 1.1, ...)": us per record of the costliest commands between two readings. */
    private static String commandCost(Map<String, Long> before, Map<String, Long> after, long records) {
        java.util.function.ToLongFunction<String> delta = key -> after.getOrDefault(key, 0L)
                - before.getOrDefault(key, 0L);
        return after.keySet().stream()
                .filter(key -> !key.endsWith(" calls") && delta.applyAsLong(key) > 0)
                .sorted(java.util.Comparator.comparingLong(delta).reversed())
                .limit(10)
                .map(key -> String.format("%s %.2f (%.1f records a call)", key,
                        delta.applyAsLong(key) / (double) Math.max(1, records),
                        records / (double) Math.max(1, delta.applyAsLong(key + " calls"))))
                .collect(java.util.stream.Collectors.joining(", ",
                        "us per record, scripts include the commands they call: ", ""));
    }

    private long usedMemory() {
        return servers.stream().mapToLong(RedisInfo::usedMemory).sum();
    }

    /** The due sets' sizes, found on whichever server holds each shard. */
    private long pending(String prefix, String topic) {
        long total = 0;
        for (RedisCommands<String, String> server : servers) {
            ScanCursor cursor = ScanCursor.INITIAL;
            do {
                KeyScanCursor<String> page = server.scan(cursor,
                        ScanArgs.Builder.matches(prefix + ":{" + topic + ":*}:due").limit(1000));
                for (String key : page.getKeys()) {
                    total += server.zcard(key);
                }
                cursor = page;
            } while (!cursor.isFinished());
        }
        return total;
    }

    void put(String key, String format, Object... args) {
        String value = String.format(format, args) + " [load " + loadAverage() + "]";
        key = target.label() + key;
        summary.put(key, value);
        log("%s: %s", key, value);
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static double seconds(long startNanos) {
        return (System.nanoTime() - startNanos) / 1e9;
    }

    static void log(String format, Object... args) {
        System.out.printf("[%s] %s%n", Instant.now().toString().substring(11, 23), String.format(format, args));
        System.out.flush();
    }

    /** {@code --name value} pairs; {@code --scenario a,b} or {@code all}. */
    record Options(Map<String, String> values) {
        static Options parse(String[] args) {
            Map<String, String> values = new LinkedHashMap<>();
            for (int i = 0; i < args.length; i++) {
                if (!args[i].startsWith("--") || i + 1 >= args.length) {
                    throw new IllegalArgumentException("expected --name value pairs, got " + args[i]
                            + "; e.g. --scenario steady --steady-rate 5000");
                }
                values.put(args[i].substring(2), args[++i]);
            }
            return new Options(values);
        }

        boolean has(String scenario) {
            String chosen = values.getOrDefault("scenario", "all");
            return chosen.equals("all") || List.of(chosen.split(",")).contains(scenario);
        }

        static final List<String> SCENARIOS = List.of("limits", "throughput", "steady", "saturation", "burst",
                "backlog", "layouts");

        List<String> chosen() {
            return SCENARIOS.stream().filter(this::has).toList();
        }

        /** These options with {@code --scenario} set to {@code scenarios}. */
        Options withScenarios(List<String> scenarios) {
            Map<String, String> copy = new LinkedHashMap<>(values);
            copy.put("scenario", scenarios.isEmpty() ? "none" : String.join(",", scenarios));
            return new Options(copy);
        }

        String get(String name, String fallback) {
            return values.getOrDefault(name, fallback);
        }

        int intOf(String name, int fallback) {
            return Integer.parseInt(values.getOrDefault(name, Integer.toString(fallback)).replace("_", ""));
        }
    }
}

package io.delaybridge.bench;

import io.delaybridge.testkit.KafkaBroker;
import io.delaybridge.testkit.RedisCluster;
import io.delaybridge.testkit.RedisServer;
import io.delaybridge.testkit.TempDirs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The end-to-end benchmark: the bridge against a plain Kafka copy, on the same broker and Redis, in one run.
 *
 * <pre>
 * ./bench.sh --help                            # every option with its default
 * ./bench.sh                                   # every scenario, default sizes
 * ./bench.sh --scenario steady --steady-rate 5000 --steady-seconds 120
 * ./bench.sh --scenario catch-up,parked-drain --catch-up-records 300000 --parked-records 1000000
 * </pre>
 *
 * Runs the chosen scenarios ({@link BenchOptions#SCENARIOS}, one class each) in order, then prints the summary. A
 * broker and a Redis (AOF, fsync always: the shipped default) start as child processes unless
 * {@code KAFKA_BOOTSTRAP_SERVERS} / {@code REDIS_URI} are set; the bridge runs as a child JVM from its fat jar.
 * {@code --redis single,cluster} runs throughput and steady once more against a Redis Cluster of three masters
 * started for it, and prints each of its result lines under its single-server twin.
 */
public final class DelayBenchmark {

    /** Each scenario by name; "rules" writes to Kafka only, so it runs in the single-server pass alone. */
    private static final Map<String, Function<BenchRun, Scenario>> SCENARIOS = scenarios();

    private DelayBenchmark() {}

    private static Map<String, Function<BenchRun, Scenario>> scenarios() {
        Map<String, Function<BenchRun, Scenario>> s = new LinkedHashMap<>();
        s.put("limits", LimitsScenario::new);
        s.put("throughput", ThroughputScenario::new);
        s.put("catch-up", CatchUpScenario::new);
        s.put("startup", StartupScenario::new);
        s.put("restart", RestartScenario::new);
        s.put("parked-drain", ParkedDrainScenario::new);
        s.put("steady", SteadyScenario::new);
        s.put("saturation", SaturationScenario::new);
        s.put("backlog", BacklogScenario::new);
        s.put("layouts", LayoutsScenario::new);
        s.put("far-layouts", FarLayoutsScenario::new);
        s.put("far-thaw", FarThawScenario::new);
        s.put(
                "rules",
                run -> () -> RuleThroughput.measure(run.bootstrap, run.options.ruleRecords, run.runId, run.workDir)
                        .forEach((k, v) -> run.put(k, "%s", v)));
        s.put("spring-retry", SpringRetryScenario::new);
        s.put("caps", CapsScenario::new);
        s.put("series", SeriesScenario::new);
        s.put("sharing", SharingScenario::new);
        if (!s.keySet().equals(new java.util.LinkedHashSet<>(BenchOptions.SCENARIOS))) {
            throw new IllegalStateException("scenarios and BenchOptions.SCENARIOS differ: " + s.keySet());
        }
        return s;
    }

    public static void main(String[] args) throws Exception {
        if (BenchOptions.wantsHelp(args)) {
            System.out.print(BenchOptions.help());
            return;
        }
        BenchOptions options;
        try {
            options = BenchOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("delay-bench: " + e.getMessage());
            System.exit(2);
            return;
        }
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
            BenchRun.log(
                    "broker %s%s, redis %s%s (%s), work dir %s",
                    bootstrap,
                    broker != null ? " (child, pid " + broker.pid() + ")" : "",
                    redisUri,
                    redisServer != null ? " (child, pid " + redisServer.pid() + ")" : "",
                    redisServer != null ? "redis " + redisServer.version() : "external",
                    workDir);
            long brokerPid = broker != null ? broker.pid() : 0;
            BenchRedis single = BenchRedis.single(redisUri, redisServer != null ? redisServer.pid() : 0);
            Map<String, String> results = pass(options, bootstrap, single, workDir, brokerPid);
            if (options.cluster) {
                results.putAll(clusterPass(options, bootstrap, workDir, brokerPid));
            }
            printResults(results);
        } finally {
            if (broker != null) {
                broker.close();
            }
            if (redisServer != null) {
                redisServer.close();
            }
            // a full run leaves ~5 GB of broker log and AOF behind: runs would fill the disk
            if (options.keepWorkDir) {
                BenchRun.log("work dir kept: %s", workDir);
            } else {
                TempDirs.deleteRecursively(workDir);
            }
        }
    }

    /** The chosen scenarios in order against one Redis; a failed scenario is reported and the next one still runs. */
    private static Map<String, String> pass(
            BenchOptions options, String bootstrap, BenchRedis target, Path workDir, long brokerPid) {
        try (BenchRun run = new BenchRun(options, bootstrap, target, workDir, brokerPid)) {
            BenchRun.log(
                    "machine: %d cores, %s; options %s",
                    Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"), options);
            run.putPlain(
                    "redis",
                    run.redis()
                                    .info("server")
                                    .lines()
                                    .filter(l -> l.startsWith("redis_version"))
                                    .findFirst()
                                    .orElse("?")
                            + ", " + run.redis().configGet("appendfsync")
                            + (target.servers().size() > 1
                                    ? ", " + target.servers().size() + " masters: " + target.uri()
                                    : ""));
            for (String name : options.scenarios) {
                if (name.equals("rules") && !target.label().isEmpty()) {
                    continue;
                }
                try {
                    SCENARIOS.get(name).apply(run).run();
                } catch (Exception e) {
                    run.put(name + ": FAILED", "%s", e);
                    e.printStackTrace(System.out);
                }
            }
            return new LinkedHashMap<>(run.summary());
        }
    }

    /**
     * Throughput and steady once more against a Redis Cluster of three masters (no replicas, each durable as the
     * single server: AOF, fsync always), started for it; their result lines start with "cluster ".
     */
    private static Map<String, String> clusterPass(BenchOptions options, String bootstrap, Path workDir, long brokerPid)
            throws Exception {
        try (RedisCluster cluster = RedisCluster.start(workDir.resolve("cluster"), 3, 0)) {
            Map<String, Long> pids = new LinkedHashMap<>();
            List<RedisServer> masters = cluster.masters();
            for (int i = 0; i < masters.size(); i++) {
                pids.put("redis-" + (i + 1), masters.get(i).pid());
            }
            BenchRun.log("cluster pass: %s (masters' pids %s)", cluster.uri(), pids.values());
            BenchRedis target = new BenchRedis(
                    "cluster ",
                    cluster.uri(),
                    masters.stream().map(RedisServer::uri).toList(),
                    pids);
            return pass(options.withScenarios(List.of("throughput", "steady")), bootstrap, target, workDir, brokerPid);
        }
    }

    /** The summary; a line of the cluster pass right under its single-server twin, so they read side by side. */
    private static void printResults(Map<String, String> results) {
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
}

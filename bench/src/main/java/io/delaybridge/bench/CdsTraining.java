package io.delaybridge.bench;

import io.delaybridge.testkit.KafkaBroker;
import io.delaybridge.testkit.RedisServer;
import io.delaybridge.testkit.TempDirs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;

/**
 * The training run of the bridge's class-data-sharing archive: starts the fat jar as the shipped commands do, against
 * a real broker and Redis (started here unless {@code KAFKA_BOOTSTRAP_SERVERS} / {@code REDIS_URI} are set), with
 * {@code -XX:DumpLoadedClassList}; lets it deliver records already due (the express path) and records due a second
 * later (stored, claimed, acked), reads its health checks and metrics, and stops it with SIGTERM. The classes it
 * loaded are the list the build turns into the archive ({@code bridge/pom.xml}, {@code docker/Dockerfile}).
 *
 * <pre>
 * ./cds-train.sh            # writes bridge/src/main/cds/delay-bridge.classlist
 * </pre>
 *
 * Run it again when the start-up path changes much (a new library, other clients): a class the list lacks is loaded
 * as without the archive, a listed class that no longer exists is skipped, so a stale list costs speed, never
 * correctness.
 */
public final class CdsTraining {

    private static final int PHASE_DUE = 1;
    private static final int PHASE_LATER = 2;

    private CdsTraining() {}

    /** Argument: where the class list goes (default {@code bridge/src/main/cds/delay-bridge.classlist}). */
    public static void main(String[] args) throws Exception {
        Path out = Path.of(args.length > 0 ? args[0] : "bridge/src/main/cds/delay-bridge.classlist");
        Path workDir = Files.createTempDirectory("delay-cds-");
        Path list = workDir.resolve("classes.lst");
        String kafkaEnv = System.getenv("KAFKA_BOOTSTRAP_SERVERS");
        String redisEnv = System.getenv("REDIS_URI");
        KafkaBroker broker =
                kafkaEnv == null || kafkaEnv.isBlank() ? KafkaBroker.start(workDir.resolve("kafka")) : null;
        RedisServer redis = redisEnv == null || redisEnv.isBlank() ? RedisServer.start(workDir.resolve("redis")) : null;
        try {
            String bootstrap = broker != null ? broker.bootstrapServers() : kafkaEnv;
            String redisUri = redis != null ? redis.uri() : redisEnv;
            BenchOptions options = BenchOptions.parse();
            try (BenchRun run = new BenchRun(
                    options, bootstrap, BenchRedis.single(redisUri, redis != null ? redis.pid() : 0), workDir, 0)) {
                String[] topics = run.createTopics("cdstrain", 3);
                Stats due = run.preloaded("training, due", topics, 2_000, PHASE_DUE);
                Stats later = new Stats("training, due a second after the start", run.nextSeq(0), 2_000);
                try (Collector collector = new Collector(run.bootstrap, List.of(topics[1]))) {
                    collector.register(PHASE_DUE, due);
                    collector.register(PHASE_LATER, later);
                    try (BridgeProcess bridge = run.startBridge(
                            "cdstrain", topics, options.bridgeJar, List.of("-XX:DumpLoadedClassList=" + list))) {
                        try (Load load = new Load(bootstrap)) {
                            long dueAt = System.currentTimeMillis() + 1_000;
                            long first = run.nextSeq(2_000);
                            for (int i = 0; i < 2_000; i++) {
                                load.send(topics[0], null, topics[1], dueAt, first + i, PHASE_LATER);
                            }
                            load.flush();
                        }
                        BenchRun.awaitDelivered(due, 60);
                        BenchRun.awaitDelivered(later, 60);
                        BenchRun.log(
                                "training: %,d + %,d delivered; %s parked",
                                due.count(), later.count(), bridge.meterCount("delay.intake.parked"));
                        if (due.count() < due.expected || later.count() < later.expected) {
                            throw new IllegalStateException(
                                    "the training bridge did not deliver everything; see " + bridge.log());
                        }
                    }
                }
            }
            Files.createDirectories(out.toAbsolutePath().getParent());
            Files.copy(list, out, StandardCopyOption.REPLACE_EXISTING);
            BenchRun.log(
                    "class list: %s (%,d lines)", out, Files.readAllLines(list).size());
        } finally {
            if (broker != null) {
                broker.close();
            }
            if (redis != null) {
                redis.close();
            }
            TempDirs.deleteRecursively(workDir);
        }
    }
}

package io.delaybridge.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Kafka broker and a Redis server shared by every test of a JVM, started on first use.
 *
 * <pre>{@code
 * String bootstrap = RealServers.kafkaBootstrap();   // "127.0.0.1:41253"
 * String redis = RealServers.redisUri();             // "redis://127.0.0.1:37095"
 * }</pre>
 *
 * <p>Where the servers come from, for each of the two on its own:
 * <ol>
 *   <li>the environment: {@value #KAFKA_ENV} and {@value #REDIS_ENV}, if set (servers someone else runs);</li>
 *   <li>Testcontainers ({@code apache/kafka} at the kafka-clients version, {@code redis:7} with AOF), if a Docker
 *       engine answers; where there is no sign of Docker this check costs nothing;</li>
 *   <li>child processes: a {@link KafkaBroker} and a {@link RedisServer} in a temporary directory, killed and
 *       deleted when the JVM exits.</li>
 * </ol>
 * The system property or environment variable {@value #MODE_PROPERTY} / {@value #MODE_ENV} chooses between the
 * last two: {@code auto} (default), {@code processes} (never Docker) or {@code containers} (Docker or fail).
 * Both servers start in parallel. Tests share them: give each test its own topics and key prefixes
 * ({@link TestServers#unique(String)}).
 */
public final class RealServers {

    public static final String KAFKA_ENV = "KAFKA_BOOTSTRAP_SERVERS";
    public static final String REDIS_ENV = "REDIS_URI";
    public static final String MODE_PROPERTY = "delaybridge.testkit.servers";
    public static final String MODE_ENV = "TESTKIT_SERVERS";

    private static final Logger LOG = LoggerFactory.getLogger(RealServers.class);
    /** Held while starting; the starter threads use the class monitor for the fields below, never this. */
    private static final Object START_LOCK = new Object();

    private static String kafkaBootstrap;
    private static String redisUri;
    private static RuntimeException failure;
    private static Path tempDir;
    private static KafkaBroker broker;
    private static RedisServer redis;

    private RealServers() {}

    /** {@code bootstrap.servers} of the shared Kafka broker. */
    public static String kafkaBootstrap() {
        ensureStarted();
        return kafkaBootstrap;
    }

    /** {@code redis://host:port} of the shared Redis server. */
    public static String redisUri() {
        ensureStarted();
        return redisUri;
    }

    private static void ensureStarted() {
        synchronized (START_LOCK) {
            if (failure != null) {
                throw new IllegalStateException(
                        "The shared test servers failed to start earlier: " + failure.getMessage(), failure);
            }
            if (kafkaBootstrap != null && redisUri != null) {
                return;
            }
            try {
                start();
            } catch (RuntimeException e) {
                failure = e;
                throw e;
            }
        }
    }

    private static void start() {
        kafkaBootstrap = env(KAFKA_ENV);
        redisUri = env(REDIS_ENV);
        if (kafkaBootstrap != null && redisUri != null) {
            return;
        }
        String mode = mode();
        if (!mode.equals("processes")) {
            long t0 = System.nanoTime();
            boolean docker = ContainerServers.dockerAvailable();
            LOG.debug("Docker available: {} (checked in {} ms)", docker, (System.nanoTime() - t0) / 1_000_000);
            if (docker) {
                try {
                    startInParallel(ContainerServers::startKafka, ContainerServers::startRedis);
                    LOG.info("Shared test servers in containers: Kafka {}, Redis {}", kafkaBootstrap, redisUri);
                    return;
                } catch (RuntimeException e) {
                    if (mode.equals("containers")) {
                        throw e;
                    }
                    LOG.warn("Docker answered but the containers did not start; using child processes", e);
                }
            } else if (mode.equals("containers")) {
                throw new IllegalStateException(MODE_PROPERTY + "=containers but no Docker engine answers");
            }
        }
        tempDir();
        startInParallel(RealServers::startBroker, RealServers::startRedisServer);
        LOG.info("Shared test servers as child processes in {}: Kafka {}, Redis {}", tempDir, kafkaBootstrap, redisUri);
    }

    private static void startInParallel(Supplier<String> kafka, Supplier<String> redisStarter) {
        CompletableFuture<String> k =
                kafkaBootstrap != null ? CompletableFuture.completedFuture(kafkaBootstrap) : async("kafka", kafka);
        CompletableFuture<String> r =
                redisUri != null ? CompletableFuture.completedFuture(redisUri) : async("redis", redisStarter);
        try {
            String kafkaResult = k.join();
            String redisResult = r.join();
            kafkaBootstrap = kafkaResult;
            redisUri = redisResult;
        } catch (CompletionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw cause instanceof RuntimeException
                    ? (RuntimeException) cause
                    : new IllegalStateException("Cannot start the shared test servers", cause);
        }
    }

    private static CompletableFuture<String> async(String name, Supplier<String> starter) {
        CompletableFuture<String> future = new CompletableFuture<>();
        Thread thread = new Thread(
                () -> {
                    try {
                        future.complete(starter.get());
                    } catch (Throwable t) {
                        future.completeExceptionally(t);
                    }
                },
                "testkit-start-" + name);
        thread.setDaemon(true);
        thread.start();
        return future;
    }

    private static synchronized Path tempDir() {
        if (tempDir == null) {
            try {
                tempDir = Files.createTempDirectory("delay-bridge-servers-");
            } catch (IOException e) {
                throw new IllegalStateException("Cannot create a temporary directory for the test servers", e);
            }
            Runtime.getRuntime().addShutdownHook(new Thread(RealServers::shutdown, "testkit-shared-servers"));
        }
        return tempDir;
    }

    private static String startBroker() {
        KafkaBroker started = KafkaBroker.start(tempDir().resolve("kafka"));
        synchronized (RealServers.class) {
            broker = started;
        }
        return started.bootstrapServers();
    }

    private static String startRedisServer() {
        RedisServer started = RedisServer.start(tempDir().resolve("redis"));
        synchronized (RealServers.class) {
            redis = started;
        }
        return started.uri();
    }

    /** Kills the child processes (throw-away data) and deletes their directory. */
    private static void shutdown() {
        KafkaBroker b;
        RedisServer r;
        Path dir;
        synchronized (RealServers.class) {
            b = broker;
            r = redis;
            dir = tempDir;
        }
        if (b != null) {
            b.kill();
        }
        if (r != null) {
            r.kill();
        }
        if (dir != null) {
            deleteRecursively(dir);
        }
    }

    static void deleteRecursively(Path dir) {
        try {
            TempDirs.deleteRecursively(dir);
        } catch (IOException e) {
            // Best effort at JVM exit; the directory is in the temporary directory.
        }
    }

    private static String mode() {
        String mode = System.getProperty(MODE_PROPERTY);
        if (mode == null || mode.isBlank()) {
            mode = System.getenv(MODE_ENV);
        }
        mode = mode == null || mode.isBlank() ? "auto" : mode.trim().toLowerCase(Locale.ROOT);
        if (!mode.equals("auto") && !mode.equals("processes") && !mode.equals("containers")) {
            throw new IllegalArgumentException(
                    MODE_PROPERTY + "/" + MODE_ENV + " must be auto, processes or " + "containers, not '" + mode + "'");
        }
        return mode;
    }

    private static String env(String name) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? null : value.trim();
    }
}

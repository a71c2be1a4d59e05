package io.delaybridge.devmode;

import io.delaybridge.testkit.KafkaBroker;
import io.delaybridge.testkit.RedisServer;
import io.delaybridge.testkit.TempDirs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.eclipse.jetty.server.Server;
import sun.misc.Signal;

/**
 * Development mode: a real Kafka broker, a real redis-server and the bridge, in one command, without Docker.
 *
 * <pre>
 * ./dev.sh                       # or: java -cp ... io.delaybridge.devmode.DevMode [options]
 *   --data-dir DIR               data and logs of the broker, Redis and the bridge (default .dev)
 *   --kafka-port P               broker port (default 9092, or a free port if 9092 is taken)
 *   --redis-port P               Redis port (default 6379, or a free port if taken)
 *   --http-port P / --admin-port P   the bridge's ports (default 8080 / 8081, or free ports)
 *   --fresh                      wipe the data directory first
 * </pre>
 *
 * Prints one line per start-up step, then what the bridge says (its own INFO lines, anyone's warnings and errors),
 * then a banner with the addresses, the log files and ready-to-paste kcat lines. The full logs go to files in the
 * data directory ({@code bridge.log}, {@code kafka/broker.log}, {@code redis/redis.log}; see {@link DevLogging});
 * a failed start names what failed and the log to read, stops what runs and exits with status 1.
 *
 * <p>Stops everything on Ctrl-C: the bridge first (it commits and returns in-flight messages), then the broker and
 * Redis. The data directory survives, so a restart keeps pending messages.
 */
public final class DevMode {

    /** The example target the printed kcat lines use; created at start. */
    static final String EXAMPLE_TARGET = "orders.timeout";

    /** The bridge's full log, in the data directory (the broker's and Redis's are in their own directories). */
    static final String BRIDGE_LOG = "bridge.log";

    private static final String PREFIX = "delay-bridge dev mode: ";

    private DevMode() {}

    public static void main(String[] args) throws Exception {
        DevLogging.librariesAtWarn();
        if (List.of(args).contains("--help") || List.of(args).contains("-h")) {
            System.out.println(
                    "./dev.sh [options]: Kafka, Redis and the bridge on this machine, no Docker.\n" + Options.USAGE);
            return;
        }
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(PREFIX + e.getMessage());
            System.exit(2);
            return;
        }
        Path dataDir = options.dataDir.toAbsolutePath();
        if (options.fresh) {
            TempDirs.deleteRecursively(dataDir);
        }
        Files.createDirectories(dataDir);
        Path bridgeLog = dataDir.resolve(BRIDGE_LOG);
        Servers servers = new Servers();

        int redisPort = portOr(options.redisPort, 6379);
        Path redisDir = dataDir.resolve("redis");
        RedisServer redis = step(
                "starting Redis on 127.0.0.1:" + redisPort,
                "ready",
                redisDir.resolve("redis.log"),
                servers,
                () -> RedisServer.start(redisDir, redisPort));
        servers.redis = redis;

        int kafkaPort = portOr(options.kafkaPort, 9092);
        int controllerPort = portOr(0, 9093);
        Path kafkaDir = dataDir.resolve("kafka");
        // Ready means it answers and has the example target topic
        KafkaBroker broker = step(
                "starting Kafka on 127.0.0.1:" + kafkaPort, "ready", kafkaDir.resolve("broker.log"), servers, () -> {
                    servers.broker = KafkaBroker.start(kafkaDir, kafkaPort, controllerPort);
                    createExampleTarget(servers.broker.bootstrapServers());
                    return servers.broker;
                });

        int httpPort = portOr(options.httpPort, 8080);
        int adminPort = portOr(options.adminPort, 8081);
        Path config = dataDir.resolve("bridge.yml");
        Files.writeString(config, bridgeConfig(broker.bootstrapServers(), redis.uri(), httpPort, adminPort, bridgeLog));
        Files.writeString(
                bridgeLog,
                "---- dev mode starting the bridge at " + Instant.now() + "\n",
                StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
        System.out.println(PREFIX + "starting the bridge on 127.0.0.1:" + httpPort + " (its full log: "
                + Banner.shown(bridgeLog) + ")");
        long bridgeStarted = System.nanoTime();

        AtomicReference<Server> jetty = new AtomicReference<>();
        Runnable stopAll = () -> {
            System.out.println("\n" + PREFIX + "stopping the bridge, then Kafka and Redis");
            try {
                Server server = jetty.get();
                if (server != null) {
                    server.stop(); // stops the intake (offsets committed, shards handed back), then the pump
                }
            } catch (Exception e) {
                System.out.println(
                        PREFIX + "the bridge did not stop cleanly: " + e + " (see " + Banner.shown(bridgeLog) + ")");
            }
            servers.stop();
            System.out.println(PREFIX + "stopped. Data kept in " + dataDir);
            System.exit(0);
        };
        // Handle Ctrl-C and SIGTERM ourselves rather than in shutdown hooks: hooks run all at once, and the broker
        // must outlive the bridge so that the bridge can commit and hand its shards back.
        AtomicBoolean stopping = new AtomicBoolean();
        for (String name : List.of("INT", "TERM")) {
            Signal.handle(new Signal(name), signal -> {
                if (stopping.compareAndSet(false, true)) {
                    // Not a daemon, unlike the signal thread it would inherit from: the main thread returns as soon
                    // as the bridge's server has stopped, and the JVM must not end before the broker and Redis do.
                    Thread stop = new Thread(stopAll, "dev-mode-stop");
                    stop.setDaemon(false);
                    stop.start();
                }
            });
        }

        Banner banner = new Banner(
                broker.bootstrapServers(),
                redis.uri(),
                httpPort,
                adminPort,
                dataDir,
                List.of(bridgeLog, broker.logFile(), redis.logFile()));
        Consumer<Throwable> bridgeFailed = failure -> {
            if (stopping.compareAndSet(false, true)) {
                DevLogging.terminalOff();
                System.out.println(PREFIX + "the bridge did not start: " + describe(failure));
                System.out.println(PREFIX + "read its log: " + Banner.shown(bridgeLog));
                servers.stop();
                System.exit(1);
            }
        };
        new DevBridgeApplication(
                        bridgeLog,
                        () -> {
                            System.out.println(PREFIX + "the bridge is ready in " + seconds(bridgeStarted));
                            banner.print();
                        },
                        bridgeFailed,
                        jetty)
                .run("server", config.toString());
    }

    /**
     * Runs one start-up step, printed as one line: {@code starting Kafka on 127.0.0.1:9092 ... ready in 2.4 s}. If it
     * fails, says what failed and which log to read, stops what already runs and exits.
     */
    private static <T> T step(String doing, String done, Path log, Servers servers, Supplier<T> action) {
        System.out.print(PREFIX + doing + " ... ");
        System.out.flush();
        long started = System.nanoTime();
        try {
            T result = action.get();
            System.out.println(done + " in " + seconds(started));
            return result;
        } catch (RuntimeException e) {
            DevLogging.terminalOff();
            System.out.println("failed after " + seconds(started));
            System.out.println(PREFIX + describe(e));
            System.out.println(PREFIX + "read its log: " + Banner.shown(log));
            servers.stop();
            System.exit(1);
            throw e; // not reached
        }
    }

    /** The failure and its root cause, in one line each. */
    static String describe(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String text = failure.getMessage() == null ? failure.toString() : failure.getMessage();
        return root == failure ? text : text + "\n  caused by " + root;
    }

    private static String seconds(long startedNanos) {
        return String.format(Locale.ROOT, "%.1f s", (System.nanoTime() - startedNanos) / 1e9);
    }

    /** The servers dev mode has started so far, stopped in reverse order of need: Kafka, then Redis. */
    private static final class Servers {
        volatile KafkaBroker broker;
        volatile RedisServer redis;

        void stop() {
            if (broker != null) {
                stop("the broker", broker::stop, broker.logFile());
            }
            if (redis != null) {
                stop("redis-server", redis::stop, redis.logFile());
            }
        }

        private static void stop(String what, Runnable stop, Path log) {
            try {
                stop.run();
            } catch (RuntimeException e) {
                System.out.println(PREFIX + what + " did not stop cleanly: " + e + " (see " + Banner.shown(log) + ")");
            }
        }
    }

    static String bridgeConfig(String kafka, String redis, int httpPort, int adminPort, Path logFile) {
        return """
                kafka:
                  bootstrapServers: %s
                  intakePartitions: 4
                  replicationFactor: 1
                redis:
                  uri: %s
                server:
                  applicationConnectors:
                    - type: http
                      bindHost: 127.0.0.1
                      port: %d
                  adminConnectors:
                    - type: http
                      bindHost: 127.0.0.1
                      port: %d
                  requestLog:
                    appenders: []
                """.formatted(kafka, redis, httpPort, adminPort) + DevLogging.bridgeLogging(logFile);
    }

    private static void createExampleTarget(String bootstrap) {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(props)) {
            if (!admin.listTopics().names().get(30, TimeUnit.SECONDS).contains(EXAMPLE_TARGET)) {
                admin.createTopics(List.of(new NewTopic(EXAMPLE_TARGET, Optional.of(1), Optional.empty())))
                        .all()
                        .get(30, TimeUnit.SECONDS);
            }
        } catch (Exception e) {
            throw new IllegalStateException("could not create the example topic " + EXAMPLE_TARGET, e);
        }
    }

    /** The preferred port if it is free (or asked for explicitly), else any free port. */
    private static int portOr(int requested, int preferred) {
        if (requested > 0) {
            return requested;
        }
        try (ServerSocket socket = new ServerSocket(preferred)) {
            socket.setReuseAddress(true);
            return preferred;
        } catch (IOException taken) {
            try (ServerSocket any = new ServerSocket(0)) {
                return any.getLocalPort();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private record Options(Path dataDir, int kafkaPort, int redisPort, int httpPort, int adminPort, boolean fresh) {
        static final String USAGE = """
                options:
                  --fresh             start with empty Kafka and Redis data (delete the data directory first)
                  --data-dir DIR      where Kafka's and Redis' data and the logs live (default .dev)
                  --kafka-port P      the broker's port (default 9092, a free one if taken)
                  --redis-port P      Redis' port (default 6379, a free one if taken)
                  --http-port P       the bridge's application port (default 8080, a free one if taken)
                  --admin-port P      the bridge's admin port (default 8081, a free one if taken)""";

        static Options parse(String[] args) {
            Path dataDir = Paths.get(".dev");
            int kafka = 0;
            int redis = 0;
            int http = 0;
            int admin = 0;
            boolean fresh = false;
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--data-dir" -> dataDir = Paths.get(value(args, ++i));
                    case "--kafka-port" -> kafka = Integer.parseInt(value(args, ++i));
                    case "--redis-port" -> redis = Integer.parseInt(value(args, ++i));
                    case "--http-port" -> http = Integer.parseInt(value(args, ++i));
                    case "--admin-port" -> admin = Integer.parseInt(value(args, ++i));
                    case "--fresh" -> fresh = true;
                    default -> throw new IllegalArgumentException("unknown option " + args[i] + "\n" + USAGE);
                }
            }
            return new Options(dataDir, kafka, redis, http, admin, fresh);
        }

        private static String value(String[] args, int i) {
            if (i >= args.length) {
                throw new IllegalArgumentException(args[i - 1] + " needs a value");
            }
            return args[i];
        }
    }
}

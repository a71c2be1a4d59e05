package io.delaybridge.devmode;

import io.delaybridge.bridge.DelayBridgeApplication;
import io.delaybridge.bridge.DelayBridgeConfiguration;
import io.delaybridge.testkit.KafkaBroker;
import io.delaybridge.testkit.RedisServer;
import io.delaybridge.testkit.TempDirs;
import io.dropwizard.core.setup.Environment;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.component.LifeCycle;
import sun.misc.Signal;

/**
 * Development mode: a real Kafka broker, a real redis-server and the bridge, in one command, without Docker.
 *
 * <pre>
 * ./dev.sh                       # or: java -cp ... io.delaybridge.devmode.DevMode [options]
 *   --data-dir DIR               where the broker and Redis keep their data (default .dev)
 *   --kafka-port P               broker port (default 9092, or a free port if 9092 is taken)
 *   --redis-port P               Redis port (default 6379, or a free port if taken)
 *   --http-port P / --admin-port P   the bridge's ports (default 8080 / 8081, or free ports)
 *   --fresh                      wipe the data directory first
 * </pre>
 *
 * Prints the addresses and ready-to-paste kcat lines, and stops everything on Ctrl-C: the bridge first (it commits
 * and returns in-flight messages), then the broker and Redis. The data directory survives, so a restart keeps
 * pending messages.
 */
public final class DevMode {

    /** The example target the printed kcat lines use; created at start. */
    static final String EXAMPLE_TARGET = "orders.timeout";

    private DevMode() {}

    public static void main(String[] args) throws Exception {
        Options options = Options.parse(args);
        Path dataDir = options.dataDir.toAbsolutePath();
        if (options.fresh) {
            TempDirs.deleteRecursively(dataDir);
        }
        Files.createDirectories(dataDir);
        System.out.println("delay-bridge dev mode: starting a Kafka broker and a redis-server in " + dataDir);

        int kafkaPort = portOr(options.kafkaPort, 9092);
        int controllerPort = portOr(0, 9093);
        int redisPort = portOr(options.redisPort, 6379);
        CompletableFuture<KafkaBroker> brokerStart = CompletableFuture.supplyAsync(
                () -> KafkaBroker.start(dataDir.resolve("kafka"), kafkaPort, controllerPort));
        CompletableFuture<RedisServer> redisStart =
                CompletableFuture.supplyAsync(() -> RedisServer.start(dataDir.resolve("redis"), redisPort));
        KafkaBroker broker = brokerStart.join();
        RedisServer redis = redisStart.join();
        createExampleTarget(broker.bootstrapServers());

        int httpPort = portOr(options.httpPort, 8080);
        int adminPort = portOr(options.adminPort, 8081);
        Path config = dataDir.resolve("bridge.yml");
        Files.writeString(config, bridgeConfig(broker.bootstrapServers(), redis.uri(), httpPort, adminPort));

        AtomicReference<Server> jetty = new AtomicReference<>();
        Runnable stopAll = () -> {
            System.out.println("\ndelay-bridge dev mode: stopping the bridge, then Kafka and Redis");
            try {
                Server server = jetty.get();
                if (server != null) {
                    server.stop(); // stops the intake (offsets committed, shards handed back), then the pump
                }
            } catch (Exception e) {
                System.out.println("delay-bridge dev mode: the bridge did not stop cleanly: " + e);
            }
            try {
                broker.stop();
            } catch (RuntimeException e) {
                System.out.println("delay-bridge dev mode: the broker did not stop cleanly: " + e);
            }
            try {
                redis.stop();
            } catch (RuntimeException e) {
                System.out.println("delay-bridge dev mode: redis-server did not stop cleanly: " + e);
            }
            System.out.println("delay-bridge dev mode: stopped. Data kept in " + dataDir);
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

        new DevBridgeApplication(() -> printBanner(broker, redis, httpPort, adminPort, dataDir), jetty)
                .run("server", config.toString());
    }

    static String bridgeConfig(String kafka, String redis, int httpPort, int adminPort) {
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
                logging:
                  level: INFO
                  loggers:
                    org.apache.kafka: WARN
                    io.lettuce: WARN
                    org.eclipse.jetty: WARN
                    io.dropwizard: WARN
                """.formatted(kafka, redis, httpPort, adminPort);
    }

    private static void printBanner(KafkaBroker broker, RedisServer redis, int httpPort, int adminPort, Path dir) {
        String kafka = broker.bootstrapServers();
        System.out.println("""

                ============================================================================
                delay-bridge dev mode is ready
                  Kafka bootstrap   %1$s   (intake: delay-intake, deadletter: delay-deadletter)
                  Redis             %2$s
                  Admin             http://127.0.0.1:%3$d/healthcheck   http://127.0.0.1:%3$d/metrics
                  Application       http://127.0.0.1:%4$d/
                  Data              %5$s

                Produce a record due in 10 seconds (apt-get install kcat):
                  echo '{"order":42}' | kcat -P -b %1$s -t delay-intake -k order-42 -H delay-target=%6$s -H delay-ms=10s

                Watch it arrive on its target:
                  kcat -C -b %1$s -t %6$s -o beginning -f 'key=%%k headers=[%%h] value=%%s\\n'

                Ctrl-C stops the bridge, Kafka and Redis.
                ============================================================================
                """.formatted(kafka, redis.uri(), adminPort, httpPort, dir, EXAMPLE_TARGET));
    }

    private static void createExampleTarget(String bootstrap) {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(props)) {
            if (!admin.listTopics().names().get(30, TimeUnit.SECONDS).contains(EXAMPLE_TARGET)) {
                admin.createTopics(List.of(new NewTopic(EXAMPLE_TARGET, Optional.of(1), Optional.empty())))
                        .all().get(30, TimeUnit.SECONDS);
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


    /** The bridge, plus a banner once it listens, and a handle on its server so dev mode can stop it first. */
    static final class DevBridgeApplication extends DelayBridgeApplication {
        private final Runnable onStarted;
        private final AtomicReference<Server> jetty;

        DevBridgeApplication(Runnable onStarted, AtomicReference<Server> jetty) {
            this.onStarted = onStarted;
            this.jetty = jetty;
        }

        @Override
        public void run(DelayBridgeConfiguration config, Environment environment) {
            super.run(config, environment);
            environment.lifecycle().addServerLifecycleListener(jetty::set);
            environment.lifecycle().addEventListener(new LifeCycle.Listener() {
                @Override
                public void lifeCycleStarted(LifeCycle event) {
                    onStarted.run();
                }
            });
        }
    }

    private record Options(Path dataDir, int kafkaPort, int redisPort, int httpPort, int adminPort, boolean fresh) {
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
                    default -> throw new IllegalArgumentException("unknown option " + args[i]
                            + "; options: --data-dir DIR --kafka-port P --redis-port P --http-port P --admin-port P"
                            + " --fresh");
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

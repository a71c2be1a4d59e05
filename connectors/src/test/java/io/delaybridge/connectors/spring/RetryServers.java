package io.delaybridge.connectors.spring;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.delaybridge.bridge.DelayBridgeApplication;
import io.delaybridge.testkit.AdminMetrics;
import io.delaybridge.testkit.ChildJvm;
import io.delaybridge.testkit.FreePorts;
import io.delaybridge.testkit.KafkaBroker;
import io.delaybridge.testkit.RealServers;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * The servers of the Spring retry tests, started once per JVM: a broker of the test kit that creates topics on
 * first use, as Kafka does by default (so a topic a retry scheme sends to is a topic it creates, and counts), the
 * kit's shared Redis, and a bridge as a child JVM (the kit's {@link ChildJvm}) on both, reading {@link #INTAKE}.
 * The kit kills both children when the JVM ends.
 */
final class RetryServers {

    static final String INTAKE = "spring-retry-intake";

    private static RetryServers instance;

    private final KafkaBroker broker;
    private final ChildJvm bridge;

    private RetryServers(KafkaBroker broker, ChildJvm bridge) {
        this.broker = broker;
        this.bridge = bridge;
    }

    static synchronized RetryServers get() {
        if (instance == null) {
            instance = start();
        }
        return instance;
    }

    private static final java.util.concurrent.atomic.AtomicInteger NAMES =
            new java.util.concurrent.atomic.AtomicInteger();

    /** A topic or group name no other test of this JVM uses. */
    static String unique(String name) {
        return name + "-" + ProcessHandle.current().pid() + "-" + NAMES.incrementAndGet();
    }

    String bootstrap() {
        return broker.bootstrapServers();
    }

    /** The broker's topics now. */
    Set<String> topics() {
        try (Admin admin = admin()) {
            return admin.listTopics().names().get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("listing topics failed", e);
        }
    }

    int partitions(String topic) {
        try (Admin admin = admin()) {
            return admin.describeTopics(List.of(topic))
                    .allTopicNames()
                    .get()
                    .get(topic)
                    .partitions()
                    .size();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("describing " + topic + " failed", e);
        }
    }

    void createTopics(String... names) {
        createTopics(1, names);
    }

    void createTopics(int partitions, String... names) {
        try (Admin admin = admin()) {
            admin.createTopics(List.of(names).stream()
                            .map(n -> new NewTopic(n, partitions, (short) 1))
                            .toList())
                    .all()
                    .get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("creating " + List.of(names) + " failed", e);
        }
    }

    private Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap()));
    }

    private static RetryServers start() {
        try {
            Path dir = Files.createTempDirectory("spring-retry-");
            KafkaBroker broker = KafkaBroker.start(dir.resolve("kafka"), KafkaBroker.Option.AUTO_CREATE_TOPICS);
            int adminPort = FreePorts.pick();
            Path config = dir.resolve("bridge.yml");
            Files.writeString(
                    config,
                    String.join(
                            "\n",
                            "kafka:",
                            "  bootstrapServers: " + broker.bootstrapServers(),
                            "  intakeTopic: " + INTAKE,
                            "  deadletterTopic: spring-retry-deadletter",
                            "  groupId: spring-retry-bridge",
                            "  instanceId: spring-retry-bridge-1",
                            "  intakePartitions: 2",
                            "  replicationFactor: 1",
                            "redis:",
                            "  uri: " + RealServers.redisUri(),
                            "  keyPrefix: spring-retry-"
                                    + ProcessHandle.current().pid(),
                            "server:",
                            "  applicationConnectors: [{type: http, bindHost: 127.0.0.1, port: 0}]",
                            "  adminConnectors: [{type: http, bindHost: 127.0.0.1, port: " + adminPort + "}]",
                            "  requestLog: {appenders: []}",
                            "logging:",
                            "  level: INFO",
                            "  loggers: {org.apache.kafka: WARN, io.lettuce: WARN}",
                            ""));
            ChildJvm bridge = ChildJvm.mainClass(
                            "spring-retry-bridge",
                            DelayBridgeApplication.class.getName(),
                            System.getProperty("java.class.path"))
                    .jvmOptions(List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"))
                    .args("server", config.toString())
                    .log(dir.resolve("bridge.log"))
                    .start();
            ObjectMapper json = new ObjectMapper();
            bridge.awaitReady(
                    Duration.ofSeconds(90),
                    () -> AdminMetrics.get(adminPort, "/healthcheck", Duration.ofSeconds(5))
                            .map(body -> {
                                try {
                                    return json.readTree(body)
                                            .path("pipeline")
                                            .path("healthy")
                                            .asBoolean();
                                } catch (IOException e) {
                                    return false;
                                }
                            })
                            .orElse(false));
            return new RetryServers(broker, bridge);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public String toString() {
        return "broker " + broker + ", bridge " + bridge + " (log " + bridge.log() + ")";
    }
}

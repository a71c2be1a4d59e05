package io.delaybridge.bridge.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delaybridge.bridge.DelayBridgeApplication;
import io.delaybridge.testkit.ChildJvm;
import io.delaybridge.testkit.FreePorts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * A bridge as a child JVM against the shared real broker and Redis, with the test's names, for faults that only a
 * real process takes: kill -9, SIGSTOP. It joins the group as the static member {@code instanceId}.
 */
final class ChildBridge implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private static final java.util.concurrent.atomic.AtomicInteger STARTED =
            new java.util.concurrent.atomic.AtomicInteger();
    private static final Pattern SHARDS = Pattern.compile("pumping shards \\[([0-9, ]*)]");

    private final String instanceId;
    private final int adminPort;
    private final ChildJvm jvm;

    private ChildBridge(String instanceId, int adminPort, ChildJvm jvm) {
        this.instanceId = instanceId;
        this.adminPort = adminPort;
        this.jvm = jvm;
    }

    /**
     * Starts a bridge as {@code instanceId} with the test's names and {@code pumpSettings} (YAML lines under
     * {@code pump:}); returns once its pipeline runs.
     */
    static ChildBridge start(
            Path dir, TestNames names, String kafka, String redis, String instanceId, String... pumpSettings) {
        return start(dir, names, kafka, redis, instanceId, Map.of(), pumpSettings);
    }

    /** As {@link #start}, with {@code env} in its environment (e.g. {@code DELAY_EXACTLY_ONCE=true}). */
    static ChildBridge start(
            Path dir,
            TestNames names,
            String kafka,
            String redis,
            String instanceId,
            Map<String, String> env,
            String... pumpSettings) {
        return start(dir, names, kafka, redis, instanceId, env, List.of(), pumpSettings);
    }

    /**
     * As {@link #start}, with {@code kafkaSettings} (YAML lines under {@code kafka:}, e.g.
     * {@code consumer: {session.timeout.ms: "60000"}}) as well.
     */
    static ChildBridge start(
            Path dir,
            TestNames names,
            String kafka,
            String redis,
            String instanceId,
            Map<String, String> env,
            List<String> kafkaSettings,
            String... pumpSettings) {
        int adminPort = FreePorts.pick();
        String file = instanceId + "-" + STARTED.incrementAndGet();
        Path config = dir.resolve(file + ".yml");
        try {
            Files.createDirectories(dir);
            Files.writeString(
                    config,
                    String.join(
                            "\n",
                            "kafka:",
                            "  bootstrapServers: " + kafka,
                            "  intakeTopic: " + names.intake(),
                            "  deadletterTopic: " + names.deadletter(),
                            "  groupId: " + names.group(),
                            "  instanceId: " + instanceId,
                            "  intakePartitions: 4",
                            "  replicationFactor: 1",
                            kafkaSettings.stream()
                                            .map(line -> "  " + line + "\n")
                                            .collect(Collectors.joining()) + "redis:",
                            "  uri: " + redis,
                            "  keyPrefix: " + names.keyPrefix(),
                            "intake:",
                            "  allowedTargets: [\"t-.*\"]",
                            "pump:",
                            "  "
                                    + String.join(
                                            "\n  ",
                                            pumpSettings.length == 0 ? new String[] {"lease: 30s"} : pumpSettings),
                            "delivery:",
                            "  exactlyOnce: ${DELAY_EXACTLY_ONCE:-false}",
                            "server:",
                            "  applicationConnectors: [{type: http, bindHost: 127.0.0.1, port: 0}]",
                            "  adminConnectors: [{type: http, bindHost: 127.0.0.1, port: " + adminPort + "}]",
                            "  requestLog: {appenders: []}",
                            "logging:",
                            "  level: INFO",
                            "  loggers: {org.apache.kafka: WARN, io.lettuce: WARN}",
                            ""));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ChildJvm jvm = ChildJvm.mainClass(
                        instanceId, DelayBridgeApplication.class.getName(), System.getProperty("java.class.path"))
                .jvmOptions(List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"))
                .args("server", config.toString())
                .env(env)
                .log(dir.resolve(file + ".log"))
                .start();
        ChildBridge bridge = new ChildBridge(instanceId, adminPort, jvm);
        bridge.awaitRunning();
        return bridge;
    }

    /** Waits until its pipeline health check is healthy. */
    void awaitRunning() {
        jvm.awaitReady(Duration.ofSeconds(90), () -> pipeline().path("healthy").asBoolean());
    }

    /** The shards it pumps now, from its pipeline health check; empty if it does not answer. */
    List<Integer> shards() {
        Matcher m = SHARDS.matcher(pipeline().path("message").asText(""));
        if (!m.find() || m.group(1).isBlank()) {
            return List.of();
        }
        return Pattern.compile(",\\s*")
                .splitAsStream(m.group(1))
                .map(Integer::parseInt)
                .toList();
    }

    /** The count of a meter of its {@code /metrics}, e.g. {@code delay.delivered}; -1 if it does not answer. */
    long meter(String name) {
        JsonNode metrics = get("/metrics");
        return metrics == null
                ? -1
                : metrics.path("meters").path(name).path("count").asLong(-1);
    }

    /** The value of a gauge of its {@code /metrics}; NaN if it does not answer or has no such gauge. */
    double gauge(String name) {
        JsonNode metrics = get("/metrics");
        return metrics == null
                ? Double.NaN
                : metrics.path("gauges").path(name).path("value").asDouble(Double.NaN);
    }

    /** Its {@code pipeline} health check: {@code healthy}, {@code message}. */
    JsonNode pipeline() {
        JsonNode health = get("/healthcheck");
        return health == null ? JSON.createObjectNode() : health.path("pipeline");
    }

    private JsonNode get(String path) {
        try {
            HttpResponse<String> response = HTTP.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + path))
                            .timeout(Duration.ofSeconds(5))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            return JSON.readTree(response.body());
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    int adminPort() {
        return adminPort;
    }

    String instanceId() {
        return instanceId;
    }

    /** Its log file. */
    Path log() {
        return jvm.log();
    }

    ChildJvm jvm() {
        return jvm;
    }

    /** kill -9. */
    void kill() {
        jvm.kill();
    }

    @Override
    public void close() {
        jvm.close();
    }

    @Override
    public String toString() {
        return "bridge " + instanceId + " (" + jvm + ", log " + jvm.log() + ")";
    }
}

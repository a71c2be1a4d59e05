package io.delaybridge.checker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delaybridge.testkit.AdminMetrics;
import io.delaybridge.testkit.ChildJvm;
import io.delaybridge.testkit.FreePorts;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * One bridge as a child JVM ({@code FaultyBridge server <config>} on this JVM's class path, launched by the
 * test kit's {@link ChildJvm}), so that {@code kill -9}, SIGTERM, SIGSTOP and SIGCONT are real signals. Its output
 * goes to a log file. It joins the group as the static member {@code instanceId}: a replacement started with the id
 * of a killed bridge takes its partitions back at once.
 */
final class BridgeProcess {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final String instanceId;
    private final int adminPort;
    private final ChildJvm jvm;
    private final CrashPoint crashPoint;

    private BridgeProcess(String instanceId, int adminPort, ChildJvm jvm, CrashPoint crashPoint) {
        this.instanceId = instanceId;
        this.adminPort = adminPort;
        this.jvm = jvm;
        this.crashPoint = crashPoint;
    }

    /**
     * Starts a bridge. {@code crashPoint}/{@code crashAfter} arm a crash point (null for none); {@code clockShift}
     * shifts its clock ("+1h"; null for none) by libfaketime or by {@link ClockShift}.
     */
    static BridgeProcess start(
            String name,
            String instanceId,
            Path config,
            Path logDir,
            Map<String, String> env,
            CrashPoint crashPoint,
            int crashAfter,
            String clockShift,
            CampaignOptions.ClockShiftMode shiftMode) {
        return start(
                FaultyBridge.class.getName(),
                name,
                instanceId,
                config,
                logDir,
                env,
                crashPoint,
                crashAfter,
                clockShift,
                shiftMode);
    }

    /** As {@link #start}, with {@code mainClass} instead of {@link FaultyBridge}: the product's own, for tests. */
    static BridgeProcess start(
            String mainClass,
            String name,
            String instanceId,
            Path config,
            Path logDir,
            Map<String, String> env,
            CrashPoint crashPoint,
            int crashAfter,
            String clockShift,
            CampaignOptions.ClockShiftMode shiftMode) {
        int adminPort = FreePorts.pick();
        ChildJvm.Builder builder = ChildJvm.mainClass(name, mainClass, System.getProperty("java.class.path"))
                .jvmOptions(List.of("-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"))
                .args("server", config.toString())
                .log(logDir.resolve(name + ".log"))
                .env(env)
                .env("DELAY_INSTANCE_ID", instanceId)
                .env("DELAY_HTTP_PORT", Integer.toString(FreePorts.pick()))
                .env("DELAY_ADMIN_PORT", Integer.toString(adminPort));
        if (crashPoint != null) {
            builder.env("DELAY_CRASH_POINT", crashPoint.settingName());
            builder.env("DELAY_CRASH_AFTER", Integer.toString(crashAfter));
        }
        if (clockShift != null && shiftMode == CampaignOptions.ClockShiftMode.FAKETIME) {
            // preloaded into the JVM itself, so that signals to this pid reach the bridge (see FaketimeCheck)
            builder.env(
                    "LD_PRELOAD",
                    FaketimeCheck.library()
                            .orElseThrow(() -> new IllegalStateException(
                                    "--clock-shift-mode faketime needs libfaketime: apt-get install faketime"))
                            .toString());
            builder.env("FAKETIME", clockShift);
        }
        if (clockShift != null && shiftMode == CampaignOptions.ClockShiftMode.JAVA) {
            builder.env("DELAY_TEST_CLOCK_SHIFT", clockShift);
        }
        return new BridgeProcess(instanceId, adminPort, builder.start(), crashPoint);
    }

    String name() {
        return jvm.name();
    }

    /** Its static member id in the consumer group. */
    String instanceId() {
        return instanceId;
    }

    long pid() {
        return jvm.pid();
    }

    CrashPoint crashPoint() {
        return crashPoint;
    }

    boolean isAlive() {
        return jvm.isAlive();
    }

    /** The exit status, once ended. */
    int exitValue() {
        return jvm.exitValue();
    }

    /**
     * Whether the bridge runs: its {@code pipeline} health check is healthy (intake running). Other checks may be
     * unhealthy on purpose during a campaign: {@code clock-skew} with a shifted clock, {@code pump-lag} right after a
     * broker restart.
     */
    boolean healthy() {
        HttpResponse<String> response = healthChecks();
        JsonNode checks = response == null ? null : json(response.body());
        if (checks == null) {
            return false;
        }
        JsonNode pipeline = checks.path("pipeline");
        return pipeline.isMissingNode()
                ? response.statusCode() == 200
                : pipeline.path("healthy").asBoolean();
    }

    /** One check of the admin port's {@code /healthcheck} ({@code healthy}, {@code message}); missing if none. */
    JsonNode healthCheck(String name) {
        HttpResponse<String> response = healthChecks();
        JsonNode checks = response == null ? null : json(response.body());
        return checks == null ? JSON.missingNode() : checks.path(name);
    }

    /** The admin port's {@code /healthcheck} answer, or null if it did not answer. */
    private HttpResponse<String> healthChecks() {
        try {
            return HTTP.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + "/healthcheck"))
                            .timeout(Duration.ofSeconds(5))
                            .GET()
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** The body as JSON, or null if it is not. */
    private static JsonNode json(String body) {
        try {
            return JSON.readTree(body);
        } catch (IOException e) {
            return null;
        }
    }

    /** The body of the admin port's {@code /metrics}, if it answers within 2 s. */
    java.util.Optional<String> metrics() {
        return AdminMetrics.get(adminPort, "/metrics", Duration.ofSeconds(2));
    }

    /** Waits until healthy; throws with the log's tail if it ended or did not get there in time. */
    void awaitHealthy(Duration timeout) {
        jvm.awaitReady(timeout, this::healthy);
    }

    /** kill -9; returns once it is gone. */
    void kill() {
        jvm.kill();
    }

    /** SIGTERM (a graceful stop: commit, drain, release); kill -9 after {@code grace}. Returns its exit status. */
    int terminate(Duration grace) {
        return jvm.terminate(grace);
    }

    /** Waits until it ends by itself (a crash point); false if it still runs after {@code timeout}. */
    boolean awaitExit(Duration timeout) throws InterruptedException {
        return jvm.awaitExit(timeout);
    }

    void signal(String signal) {
        jvm.signal(signal);
    }

    Path log() {
        return jvm.log();
    }

    @Override
    public String toString() {
        return jvm.toString();
    }
}

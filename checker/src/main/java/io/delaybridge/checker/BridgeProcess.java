package io.delaybridge.checker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delaybridge.bridge.faults.CrashPoint;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One bridge as a child JVM ({@code DelayBridgeApplication server <config>} on this JVM's class path), so that
 * {@code kill -9}, SIGTERM, SIGSTOP and SIGCONT are real signals. Its output goes to a log file; signals go through
 * the process handle or {@code kill}, never through {@code Process.destroy()} on our end of its pipes.
 */
final class BridgeProcess {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final String name;
    private final int adminPort;
    private final Process process;
    private final Path log;
    private final CrashPoint crashPoint;

    private BridgeProcess(String name, int adminPort, Process process, Path log, CrashPoint crashPoint) {
        this.name = name;
        this.adminPort = adminPort;
        this.process = process;
        this.log = log;
        this.crashPoint = crashPoint;
    }

    /**
     * Starts a bridge. {@code crashPoint}/{@code crashAfter} arm a crash point (null for none); {@code clockShift}
     * shifts its clock ("+1h"; null for none) by libfaketime or by the bridge's test-only clock setting.
     */
    static BridgeProcess start(String name, Path config, Path logDir, Map<String, String> env, CrashPoint crashPoint,
            int crashAfter, String clockShift, CampaignOptions.ClockShiftMode shiftMode) {
        int httpPort = freePort();
        int adminPort = freePort();
        List<String> command = new ArrayList<>();
        command.addAll(List.of(javaExecutable(), "-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"),
                "io.delaybridge.bridge.DelayBridgeApplication", "server", config.toString()));
        Path log = logDir.resolve(name + ".log");
        ProcessBuilder pb = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        pb.environment().putAll(env);
        pb.environment().put("DELAY_HTTP_PORT", Integer.toString(httpPort));
        pb.environment().put("DELAY_ADMIN_PORT", Integer.toString(adminPort));
        if (crashPoint != null) {
            pb.environment().put("DELAY_CRASH_POINT", crashPoint.settingName());
            pb.environment().put("DELAY_CRASH_AFTER", Integer.toString(crashAfter));
        }
        if (clockShift != null && shiftMode == CampaignOptions.ClockShiftMode.FAKETIME) {
            // preloaded into the JVM itself, so that signals to this pid reach the bridge (see FaketimeCheck)
            pb.environment().put("LD_PRELOAD", FaketimeCheck.library().orElseThrow(() -> new IllegalStateException(
                    "--clock-shift-mode faketime needs libfaketime: apt-get install faketime")).toString());
            pb.environment().put("FAKETIME", clockShift);
        }
        if (clockShift != null && shiftMode == CampaignOptions.ClockShiftMode.JAVA) {
            pb.environment().put("DELAY_TEST_CLOCK_SHIFT", clockShift);
        }
        try {
            Files.createDirectories(logDir);
            Process process = pb.start();
            Runtime.getRuntime().addShutdownHook(new Thread(process::destroyForcibly));
            return new BridgeProcess(name, adminPort, process, log, crashPoint);
        } catch (IOException e) {
            throw new UncheckedIOException("could not start bridge " + name, e);
        }
    }

    String name() {
        return name;
    }

    long pid() {
        return process.pid();
    }

    CrashPoint crashPoint() {
        return crashPoint;
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** The exit status, once ended. */
    int exitValue() {
        return process.exitValue();
    }

    /**
     * Whether the bridge runs: its {@code pipeline} health check is healthy (intake running). Other checks may be
     * unhealthy on purpose during a campaign: {@code clock-skew} with a shifted clock, {@code pump-lag} right after a
     * broker restart.
     */
    boolean healthy() {
        try {
            HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + adminPort + "/healthcheck")).timeout(Duration.ofSeconds(5))
                    .GET().build(), HttpResponse.BodyHandlers.ofString());
            JsonNode pipeline = JSON.readTree(response.body()).path("pipeline");
            return pipeline.isMissingNode() ? response.statusCode() == 200 : pipeline.path("healthy").asBoolean();
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Waits until healthy; throws with the log's tail if it ended or did not get there in time. */
    void awaitHealthy(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!healthy()) {
            if (!process.isAlive()) {
                throw new IllegalStateException("bridge " + name + " ended with status " + process.exitValue()
                        + " while starting; see " + log);
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("bridge " + name + " not healthy after " + timeout + "; see " + log);
            }
            Thread.sleep(200);
        }
    }

    /** kill -9; returns once it is gone. */
    void kill() throws InterruptedException {
        process.toHandle().destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    /** SIGTERM (a graceful stop: commit, drain, release); kill -9 after {@code grace}. Returns its exit status. */
    int terminate(Duration grace) throws InterruptedException {
        process.toHandle().destroy();
        if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
            kill();
        }
        return process.exitValue();
    }

    /** Waits until it ends by itself (a crash point); false if it still runs after {@code timeout}. */
    boolean awaitExit(Duration timeout) throws InterruptedException {
        return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    void signal(String signal) throws InterruptedException {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + process.pid() + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    Path log() {
        return log;
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String javaExecutable() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    @Override
    public String toString() {
        return name + " (pid " + process.pid() + ")";
    }
}

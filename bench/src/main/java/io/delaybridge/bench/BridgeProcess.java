package io.delaybridge.bench;

import io.delaybridge.testkit.AdminMetrics;
import io.delaybridge.testkit.ChildJvm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The bridge as a child JVM (the test kit's {@link ChildJvm}), run from its fat jar with the shipped {@code bridge/config.yml}, so its memory is its
 * own: resident set size from {@code /proc/<pid>/status} and heap from the admin port's {@code /metrics}, sampled
 * every 250 ms.
 */
final class BridgeProcess implements AutoCloseable {

    private final ChildJvm process;
    private final int adminPort;
    private final Thread sampler;
    private volatile boolean sampling = true;
    private volatile long maxRssKb;
    private volatile long maxHeapBytes;
    private volatile long lastRssKb;

    private BridgeProcess(ChildJvm process, int adminPort) {
        this.process = process;
        this.adminPort = adminPort;
        sampler = new Thread(this::sample, "bench-bridge-sampler");
        sampler.setDaemon(true);
        sampler.start();
    }

    static BridgeProcess start(
            Path jar, Path config, Path log, List<String> jvmArgs, Map<String, String> env, int adminPort)
            throws IOException, InterruptedException {
        Files.deleteIfExists(log); // one log per run, as before: the launcher appends
        ChildJvm jvm = ChildJvm.jar("bench-bridge", jar)
                .jvmOptions(jvmArgs)
                .args("server", config.toString())
                .env(env)
                .log(log)
                .start();
        BridgeProcess bridge = new BridgeProcess(jvm, adminPort);
        try {
            jvm.awaitReady(Duration.ofSeconds(180), () -> bridge.get("/healthcheck") != null);
        } catch (IllegalStateException e) {
            bridge.close();
            throw e;
        }
        return bridge;
    }

    long pid() {
        return process.pid();
    }

    /** Its log file (its output since this start). */
    Path log() {
        return process.log();
    }

    /** Forgets the maxima so far: each scenario reports its own. */
    void resetPeaks() {
        maxRssKb = lastRssKb;
        maxHeapBytes = 0;
    }

    long maxRssMb() {
        return maxRssKb / 1024;
    }

    long maxHeapMb() {
        return maxHeapBytes >> 20;
    }

    /** The count of a meter of the bridge's {@code /metrics}, e.g. {@code delay.intake.commits}; -1 if unknown. */
    long meterCount(String name) {
        String metrics = get("/metrics");
        return metrics == null ? -1 : AdminMetrics.count(metrics, name).orElse(-1);
    }

    /** The value of a gauge of the bridge's {@code /metrics}; NaN if unknown. */
    double gauge(String name) {
        String metrics = get("/metrics");
        return metrics == null ? Double.NaN : AdminMetrics.gauge(metrics, name).orElse(Double.NaN);
    }

    private void sample() {
        Path status = Path.of("/proc", Long.toString(process.pid()), "status");
        int tick = 0;
        while (sampling && process.isAlive()) {
            try {
                for (String line : Files.readAllLines(status)) {
                    if (line.startsWith("VmRSS:")) {
                        lastRssKb = Long.parseLong(line.replaceAll("\\D", ""));
                        maxRssKb = Math.max(maxRssKb, lastRssKb);
                    }
                }
                if (tick++ % 4 == 0) {
                    double heap = gauge("jvm.memory.heap.used");
                    if (!Double.isNaN(heap)) {
                        maxHeapBytes = Math.max(maxHeapBytes, (long) heap);
                    }
                }
                Thread.sleep(250);
            } catch (IOException | RuntimeException e) {
                // the process is ending
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private String get(String path) {
        return AdminMetrics.get(adminPort, path, Duration.ofSeconds(5)).orElse(null);
    }

    /** kill -9; returns once it is gone. */
    void kill() {
        sampling = false;
        process.kill();
    }

    @Override
    public void close() throws InterruptedException {
        sampling = false;
        process.terminate(Duration.ofSeconds(30)); // SIGTERM: the bridge stops its intake and pump cleanly
        sampler.join(2_000);
    }
}

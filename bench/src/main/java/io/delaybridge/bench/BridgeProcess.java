package io.delaybridge.bench;

import java.io.IOException;
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
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The bridge as a child JVM, run from its fat jar with the shipped {@code bridge/config.yml}, so its memory is its
 * own: resident set size from {@code /proc/<pid>/status} and heap from the admin port's {@code /metrics}, sampled
 * every 250 ms.
 */
final class BridgeProcess implements AutoCloseable {

    private static final Pattern HEAP_USED = Pattern.compile("\"jvm\\.memory\\.heap\\.used\"\\s*:\\s*\\{\\s*\"value\"\\s*:\\s*(\\d+)");
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final Process process;
    private final int adminPort;
    private final Thread sampler;
    private volatile boolean sampling = true;
    private volatile long maxRssKb;
    private volatile long maxHeapBytes;
    private volatile long lastRssKb;

    private BridgeProcess(Process process, int adminPort) {
        this.process = process;
        this.adminPort = adminPort;
        sampler = new Thread(this::sample, "bench-bridge-sampler");
        sampler.setDaemon(true);
        sampler.start();
    }

    static BridgeProcess start(Path jar, Path config, Path log, List<String> jvmArgs, Map<String, String> env,
            int adminPort) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmArgs);
        command.add("-jar");
        command.add(jar.toString());
        command.add("server");
        command.add(config.toString());
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(log.toFile());
        builder.environment().putAll(env);
        Process process = builder.start();
        // the bridge never outlives the benchmark, even when the benchmark is interrupted
        Runtime.getRuntime().addShutdownHook(new Thread(process::destroyForcibly, "bench-bridge-reaper"));
        BridgeProcess bridge = new BridgeProcess(process, adminPort);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("the bridge exited with " + process.exitValue() + ", see " + log);
            }
            if (bridge.get("/healthcheck") != null) {
                return bridge;
            }
            Thread.sleep(100);
        }
        bridge.close();
        throw new IllegalStateException("the bridge did not become healthy within 60 s, see " + log);
    }

    long pid() {
        return process.pid();
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
        if (metrics == null) {
            return -1;
        }
        Matcher m = Pattern.compile("\"" + Pattern.quote(name) + "\"\\s*:\\s*\\{\\s*\"count\"\\s*:\\s*(\\d+)")
                .matcher(metrics);
        return m.find() ? Long.parseLong(m.group(1)) : -1;
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
                    String metrics = get("/metrics");
                    if (metrics != null) {
                        Matcher m = HEAP_USED.matcher(metrics);
                        if (m.find()) {
                            maxHeapBytes = Math.max(maxHeapBytes, Long.parseLong(m.group(1)));
                        }
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
        try {
            HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + adminPort + path)).timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.ofString());
            return response.statusCode() == 200 ? response.body() : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    @Override
    public void close() throws InterruptedException {
        sampling = false;
        process.destroy(); // SIGTERM: the bridge stops its intake and pump cleanly
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
        }
        sampler.join(2_000);
    }
}

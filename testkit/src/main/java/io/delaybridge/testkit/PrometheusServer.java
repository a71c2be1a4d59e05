package io.delaybridge.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A real Prometheus server (Debian's {@code prometheus} binary) as a child process, for tests of what operators run
 * against the bridge: it scrapes the given targets every second and loads the given rule files.
 *
 * <pre>{@code
 * try (PrometheusServer prometheus = PrometheusServer.start(dir, List.of(
 *         new PrometheusServer.Job("delay-bridge", "/prometheus", "127.0.0.1:" + adminPort)), List.of(rules))) {
 *     String json = prometheus.query("max(delay_pending)"); // the API's JSON answer
 * }
 * }</pre>
 *
 * <p>The binary: {@code $PROMETHEUS_BIN} if set, else {@code prometheus} on the PATH. Output goes to {@code
 * prometheus.log} in the data directory, the TSDB to {@code data/}.
 */
public final class PrometheusServer extends ChildServer {

    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /** One scrape job: its name, metrics path and {@code host:port} targets. */
    public record Job(String name, String metricsPath, String... targets) {}

    private final String binary;
    private final int port;
    private final List<Job> jobs;
    private final List<Path> ruleFiles;

    private PrometheusServer(Path dataDir, String binary, int port, List<Job> jobs, List<Path> ruleFiles) {
        super(dataDir);
        this.binary = binary;
        this.port = port;
        this.jobs = List.copyOf(jobs);
        this.ruleFiles = List.copyOf(ruleFiles);
    }

    /** Starts Prometheus on a free port scraping {@code jobs} every second; returns once it is ready. */
    public static PrometheusServer start(Path dataDir, List<Job> jobs, List<Path> ruleFiles) {
        String binary = System.getenv().getOrDefault("PROMETHEUS_BIN", "prometheus");
        return startRetryingPorts(() -> new PrometheusServer(dataDir, binary, FreePorts.pick(), jobs, ruleFiles), true);
    }

    /** {@code GET /api/v1/query?query=...}: the JSON answer as text; a status other than 200 throws. */
    public String query(String promql) {
        return get("/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8));
    }

    /** {@code GET path} on the server's API: the body; a status other than 200 throws. */
    public String get(String path) {
        try {
            HttpResponse<String> response = HTTP.send(
                    HttpRequest.newBuilder(URI.create(url() + path))
                            .timeout(Duration.ofSeconds(30))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new IllegalStateException(
                        "GET " + path + " answered " + response.statusCode() + ": " + response.body());
            }
            return response.body();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public String url() {
        return "http://127.0.0.1:" + port;
    }

    @Override
    protected String name() {
        return "Prometheus on port " + port;
    }

    @Override
    protected List<String> command() throws IOException {
        StringBuilder config = new StringBuilder("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n");
        if (!ruleFiles.isEmpty()) {
            config.append("rule_files:\n");
            ruleFiles.forEach(
                    f -> config.append("  - '").append(f.toAbsolutePath()).append("'\n"));
        }
        config.append("scrape_configs:\n");
        for (Job job : jobs) {
            config.append("  - job_name: '")
                    .append(job.name())
                    .append("'\n    metrics_path: '")
                    .append(job.metricsPath())
                    .append("'\n    static_configs:\n      - targets: [");
            config.append(String.join(
                            ", ",
                            java.util.Arrays.stream(job.targets())
                                    .map(t -> "'" + t + "'")
                                    .toList()))
                    .append("]\n");
        }
        Path file = dataDir.resolve("prometheus.yml");
        Files.writeString(file, config);
        return List.of(
                binary,
                "--config.file=" + file,
                "--storage.tsdb.path=" + dataDir.resolve("data"),
                "--web.listen-address=127.0.0.1:" + port,
                "--log.level=warn");
    }

    @Override
    protected ReadinessProbe readinessProbe() {
        return () -> {
            try {
                get("/-/ready");
                return null;
            } catch (RuntimeException e) {
                return e.getMessage();
            }
        };
    }

    @Override
    protected Duration startTimeout() {
        return Duration.ofSeconds(30);
    }

    @Override
    public Path logFile() {
        return dataDir.resolve("prometheus.log");
    }

    @Override
    protected void started(Process process) {
        ChildProcesses.killWhenThisJvmEnds(process);
    }
}

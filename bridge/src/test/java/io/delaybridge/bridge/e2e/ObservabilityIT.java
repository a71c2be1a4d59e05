package io.delaybridge.bridge.e2e;

import static io.delaybridge.bridge.e2e.Http.get;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.testkit.PrometheusServer;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.RedisExporter;
import io.delaybridge.testkit.TempDirs;
import io.delaybridge.testkit.TestServers;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What operators look at, checked by real tools: the Prometheus output by {@code promtool check metrics}, the status
 * page by headless Chromium (its rendered DOM, and a screenshot in {@code target/}). Records flow first, so both show
 * live numbers.
 */
@ExtendWith(RealServersExtension.class)
class ObservabilityIT {

    private static final int DELIVERED = 30;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path DASHBOARD = Path.of("..", "monitoring", "grafana", "delay-bridge-dashboard.json");
    private static TestServers servers;
    private static TestNames names;
    private static KafkaClient kafka;
    private static TestBridge bridge;

    @BeforeAll
    static void start(TestServers testServers) {
        servers = testServers;
        names = TestNames.unique(servers);
        String target = names.target("seen");
        kafka = new KafkaClient(servers.kafkaBootstrap());
        kafka.createTopics(2, target);
        bridge = new TestBridge(names, servers.kafkaBootstrap(), servers.redisUri()).start();
        KafkaClient.Collector delivered = kafka.collect(target);
        for (int i = 0; i < DELIVERED; i++) {
            kafka.send(
                    names.intake(),
                    "k" + i,
                    "v" + i,
                    null,
                    DelayHeaders.TARGET,
                    target,
                    DelayHeaders.DELAY_MS,
                    Integer.toString(i * 10));
        }
        for (int i = 0; i < 5; i++) {
            kafka.send(
                    names.intake(), "later" + i, "v", null, DelayHeaders.TARGET, target, DelayHeaders.DELAY_MS, "2h");
        }
        kafka.send(names.intake(), "no-target", "v", null, DelayHeaders.DELAY_MS, "0");
        await().atMost(Duration.ofSeconds(30))
                .until(() -> delivered.size() >= DELIVERED
                        && get(bridge.adminPort(), "/metrics")
                                        .json()
                                        .get("meters")
                                        .get("delay.deadlettered.MISSING_TARGET")
                                        .get("count")
                                        .asInt()
                                == 1);
    }

    @AfterAll
    static void stop() {
        bridge.close();
        kafka.close();
    }

    @Test
    void prometheusOutputPassesPromtool() throws Exception {
        Http.Reply reply = get(bridge.adminPort(), "/prometheus");
        assertEquals(200, reply.status());
        String text = reply.body();
        assertTrue(
                text.contains("delay_delivered_total " + DELIVERED + ".0")
                        || text.contains("delay_delivered_total " + DELIVERED),
                "delivered counter:\n" + grep(text, "delay_delivered"));
        assertTrue(text.contains("delay_deadlettered_total{reason=\"MISSING_TARGET\"} 1"), grep(text, "deadlettered"));
        assertTrue(text.contains("delay_pending_by_shard{shard=\"0\"}"), grep(text, "pending"));
        assertTrue(text.contains("delay_lateness_seconds{quantile=\"0.99\"}"), grep(text, "lateness"));
        assertTrue(text.contains("delay_oldest_overdue_seconds"), grep(text, "overdue"));
        assertTrue(
                text.contains("delay_build_info{commit=\"" + VersionIT.headCommit() + "\",version=\""
                        + System.getProperty("project.version") + "\"} 1"),
                grep(text, "build_info"));

        Path file = Path.of("target", "prometheus-metrics.txt").toAbsolutePath();
        Files.writeString(file, text);
        String promtool = ExternalTool.require(
                "checking the Prometheus output",
                "apt-get install -y prometheus (Debian ships promtool in it)",
                "promtool");
        Process check = new ProcessBuilder(promtool, "check", "metrics")
                .redirectInput(file.toFile())
                .redirectErrorStream(true)
                .start();
        assertTrue(check.waitFor(60, TimeUnit.SECONDS), "promtool did not finish");
        String out = new String(check.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        System.out.println("promtool check metrics " + file + ": exit " + check.exitValue() + " " + out);
        assertEquals(0, check.exitValue(), "promtool check metrics rejected " + file + ":\n" + out);
    }

    /** The version and commit, as {@code --version} names them, on {@code /healthcheck}, a gauge and the status page. */
    @Test
    void theBuildIsNamedByItsHealthCheckItsGaugeAndTheStatusPage() throws Exception {
        String version = System.getProperty("project.version");
        String commit = VersionIT.headCommit();
        JsonNode build = get(bridge.adminPort(), "/healthcheck").json().get("build");
        assertTrue(build.get("healthy").asBoolean(), build.toString());
        assertEquals(version + " (commit " + commit + ")", build.get("message").asText(), build.toString());
        assertEquals(version, build.get("version").asText(), build.toString());
        assertEquals(commit, build.get("commit").asText(), build.toString());
        JsonNode gauge = get(bridge.adminPort(), "/metrics").json().at("/gauges/delay.build.info/value");
        assertEquals(version, gauge.path("version").asText(), gauge.toString());
        assertEquals(commit, gauge.path("commit").asText(), gauge.toString());
        JsonNode summary =
                get(bridge.support().getLocalPort(), "/status/summary").json();
        assertEquals(version, summary.path("version").asText());
        assertEquals(commit, summary.path("commit").asText());
    }

    /**
     * The shipped Grafana dashboard and alert rules against a real Prometheus that scrapes this bridge (under a
     * stream of records) and redis_exporter: every panel's query returns series, every metric an alert rule names is
     * exported, and Prometheus loads the rules file.
     */
    @Test
    void everyDashboardQueryAndAlertMetricReturnsSeriesFromARealPrometheus() throws Exception {
        ExternalTool.require("the dashboard test", "apt-get install -y prometheus", "prometheus");
        ExternalTool.require(
                "the dashboard test", "apt-get install -y prometheus-redis-exporter", "prometheus-redis-exporter");
        Path dir = Files.createTempDirectory("prometheus-it");
        Path rules = AlertRulesTest.RULES_DIR.resolve("delay-bridge-rules.yml");
        String target = names.target("load");
        kafka.createTopics(1, target);
        AtomicBoolean loading = new AtomicBoolean(true);
        Thread load = new Thread(
                () -> {
                    for (int i = 0; loading.get(); i++) {
                        kafka.send(
                                names.intake(),
                                "load" + i,
                                "v",
                                null,
                                DelayHeaders.TARGET,
                                target,
                                DelayHeaders.DELAY_MS,
                                Integer.toString(i % 2000));
                    }
                },
                "load");
        load.start();
        try (RedisExporter exporter = RedisExporter.start(dir.resolve("exporter"), servers.redisUri());
                PrometheusServer prometheus = PrometheusServer.start(
                        dir.resolve("prometheus"),
                        List.of(
                                new PrometheusServer.Job(
                                        "delay-bridge", "/prometheus", "127.0.0.1:" + bridge.adminPort()),
                                new PrometheusServer.Job("redis", "/metrics", exporter.target())),
                        List.of(rules))) {
            // rate() over a window needs two scrapes of each target; wait for a few
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> seriesOf(
                                    prometheus,
                                    "count_over_time(up{job=\"delay-bridge\"}[1m]) >= 4 and on() count_over_time(up{job=\"redis\"}[1m]) >= 4")
                            > 0);
            JsonNode ruleGroups =
                    JSON.readTree(prometheus.get("/api/v1/rules")).get("data").get("groups");
            assertEquals(1, ruleGroups.size(), "Prometheus loaded the rules file: " + ruleGroups);

            List<String> empty = new ArrayList<>();
            JsonNode dashboard = JSON.readTree(Files.readString(DASHBOARD));
            int queries = 0;
            for (JsonNode panel : dashboard.get("panels")) {
                for (JsonNode query : panel.get("targets")) {
                    String expr = query.get("expr").asText().replace("$__rate_interval", "30s");
                    queries++;
                    if (seriesOf(prometheus, expr) == 0) {
                        empty.add(panel.get("title").asText() + ": " + expr);
                    }
                }
            }
            assertTrue(queries >= 10, "the dashboard has its panels: " + queries);
            Matcher metric = Pattern.compile("\\b(delay_[a-z_]+|redis_memory_[a-z_]+)\\b")
                    .matcher(Files.readString(rules));
            java.util.Set<String> metrics = new java.util.TreeSet<>();
            while (metric.find()) {
                metrics.add(metric.group(1));
            }
            assertTrue(metrics.size() >= 10, "metrics named by the rules: " + metrics);
            for (String name : metrics) {
                if (seriesOf(prometheus, name) == 0) {
                    empty.add("alert rules: " + name);
                }
            }
            assertTrue(empty.isEmpty(), "queries without series: " + empty);
            System.out.println("Prometheus: " + queries + " dashboard queries and " + metrics.size()
                    + " alert metrics all returned series");
        } finally {
            loading.set(false);
            load.join(10_000);
            TempDirs.deleteRecursively(dir);
        }
    }

    private static int seriesOf(PrometheusServer prometheus, String expr) throws IOException {
        JsonNode answer = JSON.readTree(prometheus.query(expr));
        assertEquals("success", answer.get("status").asText(), expr + ": " + answer);
        return answer.get("data").get("result").size();
    }

    @Test
    void theStatusPageShowsLiveNumbersInHeadlessChromium() throws Exception {
        String chromium = ExternalTool.require(
                "the status page test", "apt-get install -y chromium", "chromium", "chromium-browser", "google-chrome");
        String url = "http://127.0.0.1:" + bridge.support().getLocalPort() + "/status/";
        assertEquals(200, get(bridge.support().getLocalPort(), "/status/").status());
        assertEquals(
                200,
                get(bridge.support().getLocalPort(), "/status/lib/chart.umd.js").status());

        // every check healthy (the admin port answers 200 only then), so the page must say so
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> bridge.admin("/healthcheck") != null);
        String dom = runChromium(chromium, "--dump-dom", url);
        assertTrue(dom.contains("data-loaded=\"true\""), "the page rendered a summary:\n" + dom);
        int delivered = Integer.parseInt(cell(dom, "delivered").replace(",", ""));
        assertTrue(delivered >= DELIVERED, "live delivered count " + delivered);
        assertEquals("5", cell(dom, "pending"), "the 2-hour messages are pending");
        assertTrue(dom.contains("<td>MISSING_TARGET</td><td class=\"num\">1</td>"), "deadletters by reason:\n" + dom);
        assertTrue(dom.contains("class=\"badge ok\">healthy</span>"), "the health badge says healthy:\n" + dom);
        assertEquals(
                System.getProperty("project.version") + " (commit " + VersionIT.headCommit() + ")",
                cell(dom, "build"),
                "the header names the build");
        Matcher rows =
                Pattern.compile("<td class=\"num\">\\d+</td><td>consumer-").matcher(dom);
        int shards = 0;
        while (rows.find()) {
            shards++;
        }
        assertEquals(4, shards, "every shard with its owner:\n" + dom);

        Path screenshot = Path.of("target", "status-page.png").toAbsolutePath();
        Files.deleteIfExists(screenshot);
        runChromium(chromium, "--screenshot=" + screenshot, url);
        assertTrue(Files.size(screenshot) > 10_000, "screenshot written");
        System.out.println("Status page screenshot: " + screenshot);
    }

    private static String cell(String dom, String id) {
        Matcher m = Pattern.compile("id=\"" + id + "\">([^<]*)<").matcher(dom);
        assertTrue(m.find(), "no element " + id);
        return m.group(1);
    }

    private static String runChromium(String chromium, String action, String url)
            throws IOException, InterruptedException {
        Path profile = Files.createTempDirectory("chromium-profile");
        List<String> command = new ArrayList<>(List.of(
                chromium,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--no-first-run",
                "--disable-dev-shm-usage",
                "--user-data-dir=" + profile,
                "--window-size=1400,1100",
                // let the page fetch /status/summary a few times (virtual time waits for the network)
                "--virtual-time-budget=7000",
                action,
                url));
        try {
            Process process = new ProcessBuilder(command)
                    .redirectError(ProcessBuilder.Redirect.DISCARD)
                    .start();
            byte[] out = process.getInputStream().readAllBytes();
            assertTrue(process.waitFor(90, TimeUnit.SECONDS), "chromium did not finish");
            assertEquals(0, process.exitValue(), "chromium " + action + " failed");
            return new String(out, StandardCharsets.UTF_8);
        } finally {
            TempDirs.deleteRecursively(profile);
        }
    }

    private static String grep(String text, String word) {
        return text.lines().filter(l -> l.contains(word)).reduce("", (a, b) -> a + b + "\n");
    }
}

package io.delaybridge.bridge.admin.api;

import com.codahale.metrics.Histogram;
import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Snapshot;
import com.codahale.metrics.health.HealthCheck;
import com.codahale.metrics.health.HealthCheckRegistry;
import io.delaybridge.bridge.admin.BuildInfo;
import io.delaybridge.bridge.admin.RulesReport;
import io.delaybridge.bridge.admin.ShardReport;
import io.delaybridge.bridge.store.MessageAdmin;
import io.delaybridge.bridge.time.Time;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.function.Supplier;

/**
 * The status page on the application port: {@code /status/} serves a static page (HTML, JS, CSS from the class path,
 * Chart.js from its WebJar) that polls {@code /status/summary} every few seconds. The summary gathers what an operator
 * looks at first: health, throughput, lateness percentiles, pending by due time, shards, deadletters by reason, per
 * target topic its rate cap, deliveries, lateness and what the cap held back, and the schedules (series).
 */
@Path("/status")
public final class StatusResource {

    private static final String PAGE_DIR = "/io/delaybridge/bridge/admin/status/";
    private static final String CHART_JS = "/META-INF/resources/webjars/chart.js/4.4.1/dist/chart.umd.js";
    private static final Map<String, String> FILES = Map.of(
            "index.html", "text/html; charset=utf-8",
            "status.js", "text/javascript; charset=utf-8",
            "status.css", "text/css; charset=utf-8");

    private final ShardReport report;
    private final MetricRegistry metrics;
    private final HealthCheckRegistry health;

    private final RulesReport rules;
    /** Per target topic: cap, delivered, lateness, held back ({@code TargetRates#rows}). */
    private Supplier<List<Map<String, Object>>> targets = List::of;
    /** The series: how many, the next due, their occurrences ({@link SeriesOverview}); empty if not wired. */
    private Supplier<Map<String, Object>> schedules = Map::of;
    /** The version and commit the page names in its header. */
    private BuildInfo build = new BuildInfo("unknown", "unknown");

    public StatusResource(ShardReport report, MetricRegistry metrics, HealthCheckRegistry health) {
        this(report, metrics, health, RulesReport.NONE);
    }

    public StatusResource(ShardReport report, MetricRegistry metrics, HealthCheckRegistry health, RulesReport rules) {
        this.report = report;
        this.metrics = metrics;
        this.health = health;
        this.rules = rules;
    }

    /** Shows the per-target table (caps, delivered, lateness, held back) from {@code rows}. */
    public StatusResource withTargets(Supplier<List<Map<String, Object>>> rows) {
        this.targets = rows;
        return this;
    }

    /**
     * Shows the schedules (series): their count, the next due with next occurrence and last delivery, and the
     * occurrences delivered, missed and skipped (this instance's meters).
     *
     * @param messages the stored messages
     * @param shards   the store's shard count
     * @param time     times how long one reading of Redis is shown
     */
    public StatusResource withSeries(MessageAdmin messages, int shards, Time time) {
        this.schedules = new SeriesOverview(messages, shards, metrics, time);
        return this;
    }

    /** Names {@code build}'s version and commit in the summary and the page's header. */
    public StatusResource withBuild(BuildInfo build) {
        this.build = build;
        return this;
    }

    @GET
    public Response index() {
        return file("index.html");
    }

    @GET
    @Path("/{file}")
    public Response file(@PathParam("file") String file) {
        String type = FILES.get(file);
        if (type == null) {
            throw ApiException.status(404, "no such file: /status/" + file);
        }
        return Response.ok(read(PAGE_DIR + file), type)
                .header("Cache-Control", "no-cache")
                .build();
    }

    @GET
    @Path("/lib/chart.umd.js")
    public Response chartJs() {
        return Response.ok(read(CHART_JS), "text/javascript; charset=utf-8")
                .header("Cache-Control", "max-age=86400")
                .build();
    }

    @GET
    @Path("/summary")
    @Produces(MediaType.APPLICATION_JSON)
    public Map<String, Object> summary() {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("version", build.version());
        out.put("commit", build.commit());
        Map<String, Object> checks = new LinkedHashMap<>();
        for (Map.Entry<String, HealthCheck.Result> e : health.runHealthChecks().entrySet()) {
            checks.put(
                    e.getKey(),
                    Map.of(
                            "healthy",
                            e.getValue().isHealthy(),
                            "message",
                            e.getValue().getMessage() == null
                                    ? ""
                                    : e.getValue().getMessage()));
        }
        out.put("health", checks);
        Map<String, Object> counts = new LinkedHashMap<>();
        for (String name : List.of(
                "scheduled",
                "delivered",
                "retried",
                "reclaimed",
                "cancelled",
                "rescheduled",
                "intake.express",
                "intake.parked")) {
            Meter meter = metrics.getMeters().get("delay." + name);
            if (meter != null) {
                counts.put(name, Map.of("count", meter.getCount(), "rate1m", meter.getOneMinuteRate()));
            }
        }
        out.put("throughput", counts);
        Histogram lateness = metrics.getHistograms().get("delay.lateness-ms");
        if (lateness != null) {
            Snapshot s = lateness.getSnapshot();
            out.put(
                    "lateness",
                    Map.of(
                            "p50",
                            s.getMedian(),
                            "p95",
                            s.get95thPercentile(),
                            "p99",
                            s.get99thPercentile(),
                            "max",
                            s.getMax(),
                            "count",
                            lateness.getCount()));
        }
        Map<String, Long> deadletters = new LinkedHashMap<>();
        SortedMap<String, Meter> meters = metrics.getMeters((name, m) -> name.startsWith("delay.deadlettered."));
        meters.forEach((name, m) -> deadletters.put(name.substring("delay.deadlettered.".length()), m.getCount()));
        out.put("deadlettered", deadletters);
        List<ShardReport.Shard> shards = report.shards();
        out.putAll(report.totals(shards));
        out.put("shards", shards);
        out.put("pendingByDue", report.histogram(null));
        out.put("intakeLag", report.group().totalLag());
        out.put("redisTime", report.redisNow());
        out.put("rules", rules.rows());
        out.put("targets", targets.get());
        out.put("schedules", schedules.get());
        return out;
    }

    private static byte[] read(String resource) {
        try (InputStream in = StatusResource.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw ApiException.status(404, "missing from the class path: " + resource);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

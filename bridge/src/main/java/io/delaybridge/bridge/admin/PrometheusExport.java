package io.delaybridge.bridge.admin;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Gauge;
import com.codahale.metrics.Histogram;
import com.codahale.metrics.Meter;
import com.codahale.metrics.Metric;
import com.codahale.metrics.MetricFilter;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.MetricRegistryListener;
import com.codahale.metrics.Snapshot;
import com.codahale.metrics.Timer;
import com.codahale.metrics.health.HealthCheckRegistry;
import io.delaybridge.bridge.delivery.TargetRates;
import io.delaybridge.bridge.pump.SeriesMeters;
import io.delaybridge.bridge.time.Time;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.SummaryWithCallback;
import io.prometheus.metrics.exporter.servlet.jakarta.PrometheusMetricsServlet;
import io.prometheus.metrics.instrumentation.dropwizard.DropwizardExports;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Quantile;
import io.prometheus.metrics.model.snapshots.Quantiles;
import jakarta.servlet.http.HttpServlet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Dropwizard registry in the Prometheus text format, through the Prometheus project's own bridge
 * ({@code prometheus-metrics-instrumentation-dropwizard}) and servlet: names are sanitised ({@code delay.pending} ->
 * {@code delay_pending}, camel case to snake case, {@code -ms} metrics in seconds as {@code _seconds}), meters and
 * counters become {@code _total} counters, histograms and timers summaries with quantiles. Per-shard and per-reason
 * metrics become one metric with a label, so PromQL can sum and filter them:
 *
 * <pre>
 * delay.pending.shard-3                 -> delay_pending_by_shard{shard="3"}
 * delay.in-flight.shard-3               -> delay_in_flight_by_shard{shard="3"}
 * delay.far.shard-3                     -> delay_far_by_shard{shard="3"}
 * delay.deadlettered.DELIVERY_FAILED    -> delay_deadlettered_total{reason="DELIVERY_FAILED"}
 * delay.target.delivered.orders         -> delay_target_delivered_total{target="orders"}
 * delay.target.lateness-ms.orders       -> delay_target_lateness_seconds{target="orders",quantile="0.99"}
 * delay.target.held-back.orders         -> delay_target_held_back_total{target="orders"}
 * delay.target.handed-back.orders       -> delay_target_handed_back_total{target="orders"}
 * delay.target.series-missed.orders     -> delay_target_series_missed_total{target="orders"}   (also -delivered, -skipped)
 * delay.series.missed.nightly-report    -> delay_series_missed_total{series="nightly-report"}  (also delivered, skipped)
 * health check redis-incarnation        -> delay_health{check="redis-incarnation"}   1 healthy, 0 not ({@link HealthGauge})
 * delay.build.info                      -> delay_build_info{version="0.1.0",commit="0123456789ab"}  1
 * </pre>
 *
 * Per-target metrics exist for at most {@code TargetRates.MAX_TRACKED} target topics (later ones share the target
 * {@code _others}), per-series ones for at most {@code SeriesMeters.MAX_TRACKED_SERIES} series (later ones share the
 * series {@code _others}), so the labels' cardinality is bounded.
 *
 * The labelled ones are callback metrics of the Prometheus client over the Dropwizard meters and gauges (the bridge's
 * label mapper would emit one family per Dropwizard metric under the same name, which the exposition refuses).
 */
public final class PrometheusExport {

    private static final Pattern CAMEL = Pattern.compile("([a-z0-9])([A-Z])");
    private static final String MS_SUFFIX = "-ms";
    private static final String DEADLETTERED = "delay.deadlettered.";
    private static final Pattern PER_SHARD = Pattern.compile("(delay\\.(?:pending|in-flight|far))\\.shard-(\\d+)");

    private PrometheusExport() {}

    public static HttpServlet servlet(MetricRegistry metrics, HealthCheckRegistry health, Time time, BuildInfo build) {
        PrometheusRegistry registry = new PrometheusRegistry();
        HealthGauge.register(registry, health, time);
        build.register(registry); // delay_build_info{version,commit}; the Dropwizard gauge's value is no number
        DropwizardExports.builder().dropwizardRegistry(mirror(metrics)).register(registry);
        CounterWithCallback.builder()
                .name("delay_deadlettered")
                .help("deadletter records written, by reason code (delay-error)")
                .labelNames("reason")
                .callback(callback -> metrics.getMeters((name, m) -> name.startsWith(DEADLETTERED))
                        .forEach((name, meter) ->
                                callback.call(meter.getCount(), name.substring(DEADLETTERED.length()))))
                .register(registry);
        perTargetCounter(
                registry, metrics, "delivered", "delay_target_delivered", "records delivered, by target topic");
        perTargetCounter(
                registry,
                metrics,
                "held-back",
                "delay_target_held_back",
                "records that waited in memory for their target's rate cap, by target topic");
        perTargetCounter(
                registry,
                metrics,
                "handed-back",
                "delay_target_handed_back",
                "claimed records handed back to Redis to wait for their target's rate cap, by target topic");
        String lateness = TargetRates.PREFIX + "lateness-ms.";
        SummaryWithCallback.builder()
                .name("delay_target_lateness_seconds")
                .help("delivery time minus due time, by target topic (recent, weighted to the last five minutes)")
                .labelNames("target")
                .callback(callback -> metrics.getHistograms((name, m) -> name.startsWith(lateness))
                        .forEach((name, histogram) -> {
                            Snapshot s = histogram.getSnapshot();
                            callback.call(
                                    histogram.getCount(),
                                    s.getMean() * histogram.getCount() / 1000.0,
                                    Quantiles.of(
                                            new Quantile(0.5, s.getMedian() / 1000.0),
                                            new Quantile(0.99, s.get99thPercentile() / 1000.0)),
                                    name.substring(lateness.length()));
                        }))
                .register(registry);
        SeriesExport.register(registry, metrics);
        perShard(
                registry,
                metrics,
                "delay.pending",
                "delay_pending_by_shard",
                "pending (due, not in flight) messages per shard");
        perShard(registry, metrics, "delay.in-flight", "delay_in_flight_by_shard", "in-flight messages per shard");
        perShard(
                registry,
                metrics,
                "delay.far",
                "delay_far_by_shard",
                "records waiting in the far tier (payload in the intake's log) per shard");
        return new PrometheusMetricsServlet(registry);
    }

    /**
     * A registry holding the same metric objects under Prometheus-style names, kept in step by a listener (metrics
     * registered later, such as Jetty's or a meter on first use, appear too). The labelled ones are left out.
     */
    static MetricRegistry mirror(MetricRegistry metrics) {
        MetricRegistry view = new MetricRegistry();
        metrics.addListener(new MetricRegistryListener() {
            private void add(String name, Metric metric) {
                if (!PER_SHARD.matcher(name).matches()
                        && !name.equals(BuildInfo.GAUGE)
                        && !name.startsWith(DEADLETTERED)
                        && !name.startsWith(TargetRates.PREFIX)
                        && !name.startsWith(SeriesMeters.PREFIX)) {
                    try {
                        view.register(prometheusName(name), inSeconds(name, metric));
                    } catch (IllegalArgumentException duplicate) {
                        // two names that differ only in case or separators: the first one is exported
                    }
                }
            }

            private void remove(String name) {
                view.remove(prometheusName(name));
            }

            @Override
            public void onGaugeAdded(String name, Gauge<?> gauge) {
                add(name, gauge);
            }

            @Override
            public void onGaugeRemoved(String name) {
                remove(name);
            }

            @Override
            public void onCounterAdded(String name, Counter counter) {
                add(name, counter);
            }

            @Override
            public void onCounterRemoved(String name) {
                remove(name);
            }

            @Override
            public void onHistogramAdded(String name, Histogram histogram) {
                add(name, histogram);
            }

            @Override
            public void onHistogramRemoved(String name) {
                remove(name);
            }

            @Override
            public void onMeterAdded(String name, Meter meter) {
                add(name, meter);
            }

            @Override
            public void onMeterRemoved(String name) {
                remove(name);
            }

            @Override
            public void onTimerAdded(String name, Timer timer) {
                add(name, timer);
            }

            @Override
            public void onTimerRemoved(String name) {
                remove(name);
            }
        });
        return view;
    }

    /**
     * Snake case and base units, as Prometheus' naming rules ({@code promtool check metrics}) want:
     * {@code io.dropwizard.jetty.MutableServletContextHandler.2xx-responses} ->
     * {@code io.dropwizard.jetty.mutable_servlet_context_handler.2xx-responses}, {@code delay.lateness-ms} ->
     * {@code delay.lateness-seconds} (the values are divided by 1000, see {@link #inSeconds}).
     */
    static String prometheusName(String name) {
        String base =
                name.endsWith(MS_SUFFIX) ? name.substring(0, name.length() - MS_SUFFIX.length()) + "-seconds" : name;
        return CAMEL.matcher(base).replaceAll("$1_$2").toLowerCase(java.util.Locale.ROOT);
    }

    /** A {@code -ms} gauge or histogram as seconds; other metrics as they are. */
    static Metric inSeconds(String name, Metric metric) {
        if (!name.endsWith(MS_SUFFIX)) {
            return metric;
        }
        if (metric instanceof Gauge<?> gauge) {
            return (Gauge<Double>) () -> gauge.getValue() instanceof Number n ? n.doubleValue() / 1000.0 : Double.NaN;
        }
        if (metric instanceof Histogram histogram) {
            return new SecondsHistogram(histogram);
        }
        return metric;
    }

    private static void perTargetCounter(
            PrometheusRegistry registry, MetricRegistry metrics, String what, String name, String help) {
        labelledCounter(registry, metrics, TargetRates.PREFIX + what + ".", "target", name, help);
    }

    /**
     * {@code name{label="<rest>"}} over the meters named {@code prefix<rest>}: one counter family, a label value per
     * meter.
     */
    static void labelledCounter(
            PrometheusRegistry registry,
            MetricRegistry metrics,
            String prefix,
            String label,
            String name,
            String help) {
        CounterWithCallback.builder()
                .name(name)
                .help(help)
                .labelNames(label)
                .callback(callback -> metrics.getMeters((n, m) -> n.startsWith(prefix))
                        .forEach((n, meter) -> callback.call(meter.getCount(), n.substring(prefix.length()))))
                .register(registry);
    }

    private static void perShard(
            PrometheusRegistry registry, MetricRegistry metrics, String prefix, String name, String help) {
        MetricFilter filter = (metricName, metric) -> metricName.startsWith(prefix + ".shard-");
        GaugeWithCallback.builder()
                .name(name)
                .help(help)
                .labelNames("shard")
                .callback(callback -> {
                    metrics.getGauges(filter).forEach((gaugeName, gauge) -> {
                        Matcher m = PER_SHARD.matcher(gaugeName);
                        if (m.matches() && m.group(1).equals(prefix) && gauge.getValue() instanceof Number n) {
                            callback.call(n.doubleValue(), m.group(2));
                        }
                    });
                })
                .register(registry);
    }
}

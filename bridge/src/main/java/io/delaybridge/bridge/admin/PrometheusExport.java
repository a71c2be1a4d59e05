package io.delaybridge.bridge.admin;

import com.codahale.metrics.MetricRegistry;
import io.prometheus.metrics.exporter.servlet.jakarta.PrometheusMetricsServlet;
import io.prometheus.metrics.instrumentation.dropwizard.DropwizardExports;
import io.prometheus.metrics.instrumentation.dropwizard5.labels.CustomLabelMapper;
import io.prometheus.metrics.instrumentation.dropwizard5.labels.MapperConfig;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import jakarta.servlet.http.HttpServlet;
import java.util.List;
import java.util.Map;

/**
 * The Dropwizard registry in the Prometheus text format, through the Prometheus project's own bridge
 * ({@code prometheus-metrics-instrumentation-dropwizard}) and servlet: names are sanitised ({@code delay.pending} ->
 * {@code delay_pending}), meters and counters become {@code _total} counters, histograms and timers summaries with
 * quantiles. Per-shard and per-reason metrics become one metric with a label, so PromQL can sum and filter them:
 *
 * <pre>
 * delay.pending.shard-3                 -> delay_pending_by_shard{shard="3"}
 * delay.in-flight.shard-3               -> delay_in_flight_by_shard{shard="3"}
 * delay.deadlettered.DELIVERY_FAILED    -> delay_deadlettered_total{reason="DELIVERY_FAILED"}
 * </pre>
 */
public final class PrometheusExport {

    private PrometheusExport() {}

    public static HttpServlet servlet(MetricRegistry metrics) {
        PrometheusRegistry registry = new PrometheusRegistry();
        DropwizardExports.builder()
                .dropwizardRegistry(metrics)
                .customLabelMapper(new CustomLabelMapper(List.of(
                        new MapperConfig("delay.pending.shard-*", "delay.pending.by.shard", Map.of("shard", "${0}")),
                        new MapperConfig("delay.in-flight.shard-*", "delay.in-flight.by.shard",
                                Map.of("shard", "${0}")),
                        new MapperConfig("delay.deadlettered.*", "delay.deadlettered", Map.of("reason", "${0}")))))
                .register(registry);
        return new PrometheusMetricsServlet(registry);
    }
}

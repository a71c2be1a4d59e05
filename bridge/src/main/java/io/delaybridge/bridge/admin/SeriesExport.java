package io.delaybridge.bridge.admin;

import com.codahale.metrics.MetricRegistry;
import io.delaybridge.bridge.pump.SeriesMeters;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/**
 * The meters of series ({@link SeriesMeters}) in the Prometheus export: per series {@code delay_series_<what>_total}
 * labelled {@code series}, per target topic {@code delay_target_series_<what>_total} labelled {@code target}, for
 * delivered, missed and skipped occurrences.
 */
final class SeriesExport {

    private static final String[][] WHAT = {
        {"delivered", "occurrences of series delivered"},
        {"missed", "occurrences of series found past after an outage (delivered late or not at all)"},
        {"skipped", "occurrences of series never delivered: dropped by delay-missed or a daylight-saving gap"}
    };

    private SeriesExport() {}

    static void register(PrometheusRegistry registry, MetricRegistry metrics) {
        for (String[] what : WHAT) {
            PrometheusExport.labelledCounter(
                    registry,
                    metrics,
                    SeriesMeters.PREFIX + what[0] + ".",
                    "series",
                    "delay_series_" + what[0],
                    what[1] + ", by series id (the first " + SeriesMeters.MAX_TRACKED_SERIES + " series, then "
                            + SeriesMeters.OTHERS + ")");
            PrometheusExport.labelledCounter(
                    registry,
                    metrics,
                    SeriesMeters.TARGET_PREFIX + what[0] + ".",
                    "target",
                    "delay_target_series_" + what[0],
                    what[1] + ", by target topic");
        }
    }
}

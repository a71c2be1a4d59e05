package io.delaybridge.bridge.admin;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.health.HealthCheck;
import io.prometheus.metrics.core.metrics.Info;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Properties;

/**
 * The version and commit this bridge was built from, as {@code java -jar delay-bridge.jar --version} names them: the
 * build writes both into {@code build-info.properties} beside this class (bridge/pom.xml, resource filtering). Shown
 * by the {@code build} health check, the gauge {@code delay.build.info} (in Prometheus
 * {@code delay_build_info{version="...",commit="..."} 1}) and the status page.
 *
 * @param version the project version, e.g. {@code 0.1.0}
 * @param commit the commit's 12-digit abbreviation, or {@code unknown} (no git at build time)
 */
public record BuildInfo(String version, String commit) {

    /** The Dropwizard gauge: its value is {@code {"version": ..., "commit": ...}}. */
    public static final String GAUGE = "delay.build.info";

    private static final String RESOURCE = "build-info.properties";
    private static final String UNKNOWN = "unknown";

    /** What the build wrote; {@code unknown} for what it did not (classes run without the build's resources). */
    public static BuildInfo ofThisBuild() {
        Properties properties = new Properties();
        try (InputStream in = BuildInfo.class.getResourceAsStream(RESOURCE)) {
            if (in != null) {
                properties.load(in);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + RESOURCE, e);
        }
        return new BuildInfo(value(properties, "version"), value(properties, "commit"));
    }

    /** {@code 0.1.0 (commit 0123456789ab)}: the text of {@code --version}. */
    public String text() {
        return version + " (commit " + commit + ")";
    }

    /** The health check {@code build}: always healthy, it names the build; details {@code version} and {@code commit}. */
    public HealthCheck healthCheck() {
        HealthCheck.Result result = HealthCheck.Result.builder()
                .healthy()
                .withMessage(text())
                .withDetail("version", version)
                .withDetail("commit", commit)
                .build();
        return new HealthCheck() {
            @Override
            protected Result check() {
                return result;
            }
        };
    }

    /** Registers {@link #GAUGE}, whose value the JSON of {@code /metrics} shows as {@code version} and {@code commit}. */
    public void register(MetricRegistry metrics) {
        Map<String, String> value = Map.of("version", version, "commit", commit);
        metrics.register(GAUGE, (Gauge<Map<String, String>>) () -> value);
    }

    /** The Prometheus info metric {@code delay_build_info{version,commit}}, always 1. */
    public void register(PrometheusRegistry registry) {
        Info.builder()
                .name("delay_build") // an info metric: exported as delay_build_info
                .help("the version and commit of this bridge's build")
                .labelNames("version", "commit")
                .register(registry)
                .addLabelValues(version, commit);
    }

    private static String value(Properties properties, String name) {
        String value = properties.getProperty(name, "").strip();
        // unfiltered (a build that did not run the resources' filtering): the placeholder itself
        return value.isEmpty() || value.startsWith("${") ? UNKNOWN : value;
    }
}

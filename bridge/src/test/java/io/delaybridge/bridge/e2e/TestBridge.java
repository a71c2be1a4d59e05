package io.delaybridge.bridge.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.delaybridge.bridge.DelayBridgeApplication;
import io.delaybridge.bridge.DelayBridgeConfiguration;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.DropwizardTestSupport;
import io.dropwizard.testing.ResourceHelpers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A bridge running in this JVM against the shared real broker and Redis, with its own topics and key prefix.
 *
 * <p>Dropwizard reads a test's settings from system properties, which every bridge of the JVM sees: each bridge here
 * reads them under a prefix of its own ({@link #support}), so that bridges of test classes that run at once do not take
 * each other's settings.
 */
final class TestBridge implements AutoCloseable {

    /** Bridges of one test share this host: each is its own static member of the group. */
    private static final java.util.concurrent.atomic.AtomicInteger INSTANCES =
            new java.util.concurrent.atomic.AtomicInteger();

    /** Numbers the system-property prefixes of the bridges of this JVM. */
    private static final java.util.concurrent.atomic.AtomicInteger PREFIXES =
            new java.util.concurrent.atomic.AtomicInteger();

    /** One setting over the configuration file: a dotted key ({@code pump.lease}) and its value. */
    record Setting(String key, String value) {}

    /** The setting {@code key} = {@code value}. */
    static Setting set(String key, String value) {
        return new Setting(key, value);
    }

    private final DropwizardTestSupport<DelayBridgeConfiguration> support;

    TestBridge(TestNames names, String kafka, String redis, Setting... extra) {
        List<Setting> settings = new ArrayList<>(List.of(
                set("kafka.bootstrapServers", kafka),
                set("kafka.intakeTopic", names.intake()),
                set("kafka.deadletterTopic", names.deadletter()),
                set("kafka.groupId", names.group()),
                set("kafka.instanceId", names.group() + "-" + INSTANCES.incrementAndGet()),
                set("redis.uri", redis),
                set("redis.keyPrefix", names.keyPrefix())));
        settings.addAll(List.of(extra));
        support = support(ResourceHelpers.resourceFilePath("test-bridge.yml"), settings.toArray(Setting[]::new));
    }

    /**
     * A bridge of {@code configPath} with {@code settings} over it, not started, reading its settings under a
     * system-property prefix no other bridge of this JVM reads.
     */
    static DropwizardTestSupport<DelayBridgeConfiguration> support(String configPath, Setting... settings) {
        String prefix = "tb" + PREFIXES.incrementAndGet();
        ConfigOverride[] overrides = java.util.Arrays.stream(settings)
                .map(setting -> ConfigOverride.config(prefix, setting.key(), setting.value()))
                .toArray(ConfigOverride[]::new);
        return new DropwizardTestSupport<>(DelayBridgeApplication.class, configPath, prefix, overrides);
    }

    TestBridge start() {
        try {
            support.before();
        } catch (Exception e) {
            throw new IllegalStateException("bridge did not start", e);
        }
        return this;
    }

    void stop() {
        support.after();
    }

    int adminPort() {
        return support.getAdminPort();
    }

    /** GETs a path on the admin port and returns the parsed JSON body; fails on a status other than 200. */
    com.fasterxml.jackson.databind.JsonNode admin(String path) {
        try {
            java.net.http.HttpResponse<String> response = java.net.http.HttpClient.newHttpClient()
                    .send(
                            java.net.http.HttpRequest.newBuilder(
                                            java.net.URI.create("http://127.0.0.1:" + adminPort() + path))
                                    .build(),
                            java.net.http.HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new AssertionError("GET " + path + " answered " + response.statusCode() + ": " + response.body());
            }
            return support.getObjectMapper().readTree(response.body());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The count of one of the bridge's meters, e.g. {@code delay.store.gaps}. */
    long meter(String name) {
        return support.getEnvironment().metrics().meter(name).getCount();
    }

    /**
     * How long a test waits for a meter or gauge to read what it expects. Meters and gauges change on the thread that
     * does the work, which may come after the effect a test saw: a write's meters are marked when the intake thread
     * handles its completion, possibly after the pump delivered the record. So tests read them with a wait.
     */
    static final Duration METRIC_WAIT = Duration.ofSeconds(30);

    /**
     * Waits, up to {@link #METRIC_WAIT}, until the number at {@code pointer} in {@code /metrics} (e.g.
     * {@code /meters/delay.scheduled/count}) is {@code expected}.
     */
    void awaitMetric(String pointer, long expected) {
        await().atMost(METRIC_WAIT)
                .untilAsserted(() ->
                        assertEquals(expected, admin("/metrics").at(pointer).asLong(), pointer));
    }

    /** Waits, up to {@link #METRIC_WAIT}, until one of the bridge's meters counts {@code expected}. */
    void awaitMeter(String name, long expected) {
        await().atMost(METRIC_WAIT).untilAsserted(() -> assertEquals(expected, meter(name), name));
    }

    DropwizardTestSupport<DelayBridgeConfiguration> support() {
        return support;
    }

    @Override
    public void close() {
        stop();
    }
}

package io.delaybridge.bridge.intake;

import io.delaybridge.bridge.errors.Failures;
import io.delaybridge.schemas.DelayText;
import io.dropwizard.lifecycle.Managed;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the intake topic's retention ({@code Admin.describeConfigs}) when it starts, before the intake polls, and
 * every {@code intake.retentionCheckInterval} after, and hands it to the {@link FarPolicy} as a {@link FarRetention}.
 * Size-based retention or compaction turns the far tier off with one WARN naming the setting and the fix, and its
 * return one INFO; a shorter {@code retention.ms} is a WARN (records already far may be due beyond it). A failed
 * read keeps the last answer with a WARN: it never turns the far tier on by itself, and before the first answer
 * nothing goes far.
 */
public final class RetentionWatch implements Managed {

    private static final Logger LOG = LoggerFactory.getLogger(RetentionWatch.class);

    /** The topic settings read: those that decide ({@link FarRetention}), and {@code local.retention.ms} for the log. */
    static final List<String> SETTINGS =
            List.of("retention.ms", "retention.bytes", "cleanup.policy", "remote.storage.enable", "local.retention.ms");

    private final Admin admin;
    private final String topic;
    private final long marginMillis;
    private final Duration interval;
    private final long callTimeoutMillis;
    private final FarPolicy policy;

    private ScheduledExecutorService timer;
    /** The last answer read, or null. Guarded by this. */
    private FarRetention last;

    /**
     * @param marginMillis      {@code intake.farRetentionMargin}
     * @param interval          {@code intake.retentionCheckInterval}
     * @param callTimeoutMillis how long one describe may take
     */
    public RetentionWatch(
            Admin admin, String topic, long marginMillis, Duration interval, long callTimeoutMillis, FarPolicy policy) {
        this.admin = admin;
        this.topic = topic;
        this.marginMillis = marginMillis;
        this.interval = interval;
        this.callTimeoutMillis = callTimeoutMillis;
        this.policy = policy;
    }

    /**
     * Reads the retention at once and then every interval, on a thread of its own: start-up does not wait for it
     * (until the first answer nothing goes far, which is safe: those records are stored hot).
     */
    @Override
    public void start() {
        timer = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "delay-retention-watch");
            thread.setDaemon(true);
            return thread;
        });
        timer.scheduleWithFixedDelay(this::check, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public void stop() throws InterruptedException {
        if (timer != null) {
            timer.shutdownNow();
            timer.awaitTermination(callTimeoutMillis, TimeUnit.MILLISECONDS);
        }
    }

    /** Reads the intake topic's retention and hands it to the policy; a failed read keeps the last answer. */
    synchronized void check() {
        Map<String, String> config;
        FarRetention now;
        try {
            config = describe();
            now = FarRetention.of(topic, config, marginMillis);
        } catch (ExecutionException e) {
            failed(e.getCause());
            return;
        } catch (TimeoutException | RuntimeException e) {
            failed(e);
            return;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        FarRetention before = last;
        last = now;
        policy.retention(now);
        report(before, now, config);
    }

    private Map<String, String> describe() throws InterruptedException, ExecutionException, TimeoutException {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        Config config = admin.describeConfigs(List.of(resource))
                .all()
                .get(callTimeoutMillis, TimeUnit.MILLISECONDS)
                .get(resource);
        Map<String, String> read = new LinkedHashMap<>();
        for (String name : SETTINGS) {
            ConfigEntry entry = config == null ? null : config.get(name);
            if (entry != null && entry.value() != null) {
                read.put(name, entry.value());
            }
        }
        return read;
    }

    private void failed(Throwable cause) {
        LOG.warn(
                "Reading the retention of the intake topic {} failed; the far tier stays {}, and it is read again in"
                        + " {}: {}",
                topic,
                last == null ? "off (never read)" : (last.on() ? "on" : "off") + " as last read",
                DelayText.formatMillis(interval.toMillis()),
                Failures.describe(cause));
    }

    /** Logs what changed: one line when the far tier turns off or on, or its retention shrinks or grows. */
    private void report(FarRetention before, FarRetention now, Map<String, String> config) {
        if (!now.on()) {
            if (before == null || before.on() || !before.reason().equals(now.reason())) {
                LOG.warn("Far tier off: {}", now.reason());
            }
            return;
        }
        if (before == null || !before.on()) {
            String line = "Far tier " + (before == null ? "" : "back ") + "{}; the intake topic's settings: {}";
            if (policy.takesNone()) {
                LOG.warn(line, policy.state(), config);
            } else {
                LOG.info(line, policy.state(), config);
            }
            return;
        }
        if (shorter(now.retentionMillis(), before.retentionMillis())) {
            LOG.warn(
                    "The intake topic {} keeps records for less now (retention.ms {} -> {}): records already waiting"
                            + " in the far tier due more than {} after their timestamp may be deleted before they are"
                            + " thawed; new ones stay in Redis. Far tier {}",
                    topic,
                    before.retentionMillis(),
                    now.retentionMillis(),
                    DelayText.formatMillis(Math.max(0, now.retentionMillis())),
                    policy.state());
        } else if (now.retentionMillis() != before.retentionMillis()) {
            LOG.info(
                    "The intake topic {} keeps records for longer now (retention.ms {} -> {}): {}",
                    topic,
                    before.retentionMillis(),
                    now.retentionMillis(),
                    policy.state());
        }
    }

    /** Whether retention {@code now} keeps records for less time than {@code before} (-1: for ever). */
    private static boolean shorter(long now, long before) {
        if (now == FarRetention.INFINITE) {
            return false;
        }
        return before == FarRetention.INFINITE || now < before;
    }
}

package io.delaybridge.bridge.intake;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import io.delaybridge.bridge.SharedJvm;
import io.delaybridge.bridge.delivery.DeadletterMeters;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.TestServers;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.slf4j.LoggerFactory;

/**
 * The retention watch against a real broker: the intake topic's settings are changed with
 * {@code incrementalAlterConfigs} while it runs, and the far tier follows within a few checks.
 */
@ExtendWith(RealServersExtension.class)
@ResourceLock(SharedJvm.LOGGING_AND_THREADS) // no bridge starts in this JVM while it runs
class RetentionWatchIT {

    private static final long MINUTE = 60_000;
    private static final long HOUR = 60 * MINUTE;
    private static final long DAY = 24 * HOUR;
    private static final Duration DEADLINE = Duration.ofSeconds(30);

    private final ListAppender<ILoggingEvent> log = new ListAppender<>();
    private final Logger logger = (Logger) LoggerFactory.getLogger(RetentionWatch.class);
    private Admin admin;
    private RetentionWatch watch;

    @BeforeEach
    void capture() {
        log.start();
        logger.setLevel(Level.INFO); // the tests log WARN and above: the watch's INFO lines are asserted here
        logger.addAppender(log);
    }

    @AfterEach
    void release() throws Exception {
        logger.detachAppender(log);
        logger.setLevel(null);
        if (watch != null) {
            watch.stop();
        }
        if (admin != null) {
            admin.close();
        }
    }

    @Test
    void sizeRetentionCompactionAndAShorterRetentionTurnTheFarTierOffOrNarrowIt(TestServers servers) throws Exception {
        String topic = servers.unique("retention");
        admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, servers.kafkaBootstrap()));
        admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1)
                        .configs(Map.of("retention.ms", Long.toString(7 * DAY), "retention.bytes", "-1"))))
                .all()
                .get(30, TimeUnit.SECONDS);
        FarPolicy policy = new FarPolicy(10 * MINUTE, Clock.systemUTC());
        MetricRegistry registry = new MetricRegistry();
        new IntakeMetrics(registry, new DeadletterMeters(registry)).farTier(policy);
        watch = new RetentionWatch(admin, topic, HOUR, Duration.ofMillis(200), 5_000, policy);

        awaitKnown(topic); // a topic created a moment ago may be unknown to the broker that answers, for a moment
        watch.start(); // reads at once (on its own thread, start-up does not wait), then every 200 ms
        await().atMost(DEADLINE).until(policy::enabled); // 7 days, time-based: on
        assertEquals(1, enabled(registry));
        assertTrue(farNow(policy, DAY), "a record due in a day goes far");
        assertFalse(farNow(policy, MINUTE), "one due in a minute stays hot");
        assertTrue(infos().stream().anyMatch(line -> line.startsWith("Far tier on: ")), infos().toString());
        assertEquals(List.of(), warnings());

        alter(topic, "retention.bytes", "1048576");
        await().atMost(DEADLINE).until(() -> !policy.enabled());
        assertEquals(0, enabled(registry));
        assertFalse(farNow(policy, DAY), "size-based retention: every record hot");
        assertTrue(policy.state().contains("retention.bytes=1048576"), policy.state());
        for (int i = 0; i < 3; i++) {
            watch.check(); // as the timer does, besides it
        }
        assertEquals(1, warnings().size(), "one WARN, not one per check: " + warnings());
        assertTrue(
                warnings().get(0).contains("retention.bytes=1048576")
                        && warnings().get(0).contains("set retention.bytes=-1 on " + topic),
                warnings().get(0));

        alter(topic, "retention.bytes", "-1");
        await().atMost(DEADLINE).until(policy::enabled);
        assertEquals(1, enabled(registry));
        assertTrue(infos().stream().anyMatch(line -> line.startsWith("Far tier back on: ")), infos().toString());

        alter(topic, "cleanup.policy", "compact");
        await().atMost(DEADLINE).until(() -> !policy.enabled());
        assertEquals(0, enabled(registry));
        assertEquals(2, warnings().size(), warnings().toString());
        assertTrue(
                warnings().get(1).contains("cleanup.policy=compact"), warnings().get(1));
        assertTrue(
                warnings().get(1).contains("set cleanup.policy=delete on " + topic),
                warnings().get(1));

        alter(topic, "cleanup.policy", "delete");
        await().atMost(DEADLINE).until(policy::enabled);

        // two hours of retention less the hour's margin: a record due in a day would be deleted before it is due
        alter(topic, "retention.ms", Long.toString(2 * HOUR));
        await().atMost(DEADLINE).until(() -> !farNow(policy, DAY));
        assertTrue(policy.enabled(), "time-based retention keeps the tier on, for what it keeps");
        assertEquals(1, enabled(registry));
        assertTrue(farNow(policy, 30 * MINUTE), "due within retention less the margin: far");
        assertEquals(3, warnings().size(), warnings().toString());
        assertTrue(
                warnings().get(2).contains("retention.ms 604800000 -> 7200000"),
                warnings().get(2));
    }

    @Test
    void aFailedReadKeepsTheLastAnswerAndNeverTurnsTheTierOn(TestServers servers) throws Exception {
        String topic = servers.unique("retention-gone");
        admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, servers.kafkaBootstrap()));
        FarPolicy policy = new FarPolicy(10 * MINUTE, Clock.systemUTC());
        watch = new RetentionWatch(admin, topic, HOUR, Duration.ofMillis(200), 5_000, policy);

        watch.start(); // no such topic: the read fails, the tier stays off
        await().atMost(DEADLINE).until(() -> !warnings().isEmpty());
        assertFalse(policy.enabled());
        assertTrue(policy.state().startsWith("off until the intake topic's retention is read"), policy.state());
        assertFalse(warnings().isEmpty());
        assertTrue(
                warnings().get(0).contains("failed; the far tier stays off (never read)"),
                warnings().get(0));

        admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1).configs(Map.of("retention.ms", "-1"))))
                .all()
                .get(30, TimeUnit.SECONDS);
        await().atMost(DEADLINE).until(policy::enabled);

        admin.deleteTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
        await().atMost(DEADLINE)
                .until(() -> warnings().stream().anyMatch(line -> line.contains("failed; the far tier stays on")));
        assertTrue(policy.enabled(), "the last answer holds while the topic cannot be read");
    }

    private void awaitKnown(String topic) {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        await().atMost(DEADLINE)
                .ignoreExceptions()
                .until(() -> admin.describeConfigs(List.of(resource))
                                .all()
                                .get(10, TimeUnit.SECONDS)
                                .get(resource)
                        != null);
    }

    private static boolean farNow(FarPolicy policy, long dueIn) {
        long now = System.currentTimeMillis();
        return policy.far(0, 1, now, now + dueIn);
    }

    @SuppressWarnings("unchecked")
    private static int enabled(MetricRegistry registry) {
        return ((Gauge<Integer>) registry.getGauges().get("delay.far.enabled")).getValue();
    }

    private void alter(String topic, String name, String value) throws Exception {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        Map<ConfigResource, Collection<AlterConfigOp>> change =
                Map.of(resource, List.of(new AlterConfigOp(new ConfigEntry(name, value), AlterConfigOp.OpType.SET)));
        admin.incrementalAlterConfigs(change).all().get(30, TimeUnit.SECONDS);
    }

    private List<String> warnings() {
        return lines(Level.WARN);
    }

    private List<String> infos() {
        return lines(Level.INFO);
    }

    private List<String> lines(Level level) {
        synchronized (log) {
            return log.list.stream()
                    .filter(e -> e.getLevel() == level)
                    .map(ILoggingEvent::getFormattedMessage)
                    .toList();
        }
    }
}

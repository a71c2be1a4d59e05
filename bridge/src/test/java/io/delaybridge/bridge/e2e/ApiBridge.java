package io.delaybridge.bridge.e2e;

import static io.delaybridge.bridge.e2e.Http.get;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.testkit.TestServers;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.LoggerFactory;

/**
 * One bridge for the tests of its operations API, on the real broker and a Redis: credentials for a token and a user,
 * two target topics, its audit lines captured, every shard owned before a test looks. A class that uses it takes
 * {@code SharedJvm.LOGGING_AND_THREADS} to write: a bridge started meanwhile would reset logging and drop the capture.
 */
final class ApiBridge implements AutoCloseable {

    static final int PARTITIONS = 4;

    final AtomicInteger ids = new AtomicInteger();
    final TestNames names;
    final KafkaClient kafka;
    final TestBridge bridge;
    /** What reached {@link #target} and {@link #other}. */
    final KafkaClient.Collector delivered;

    final String target;
    final String other;
    /** The application port (message API, shard views) and the admin port (tasks, health, metrics). */
    final int app;

    final int adminPort;
    private final ListAppender<ILoggingEvent> audit = new ListAppender<>();

    ApiBridge(TestServers servers, String redisUri) {
        names = TestNames.unique(servers);
        target = names.target("out");
        other = names.target("other");
        kafka = new KafkaClient(servers.kafkaBootstrap());
        kafka.createTopics(2, target, other);
        bridge = new TestBridge(
                        names,
                        servers.kafkaBootstrap(),
                        redisUri,
                        TestBridge.set("api.token", Http.TOKEN),
                        TestBridge.set("api.users." + Http.USER, Http.PASSWORD),
                        TestBridge.set("api.maxBulkCancel", "100"),
                        TestBridge.set("api.maxReplay", "50000"),
                        TestBridge.set("api.maxBodySize", "1KiB"))
                .start();
        app = bridge.support().getLocalPort();
        // the audit lines, captured after the bridge configured logging (WARN in the tests)
        Logger auditLog = (Logger) LoggerFactory.getLogger("delay-bridge.audit");
        auditLog.setLevel(Level.INFO);
        audit.start();
        auditLog.addAppender(audit);
        adminPort = bridge.adminPort();
        delivered = kafka.collect(target, other);
        // every shard has an owner before the tests look at owners and pumping
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            JsonNode shards = get(app, "/shards").json().get("shards");
            for (JsonNode shard : shards) {
                if (shard.get("owner").isNull()) {
                    return false;
                }
            }
            return true;
        });
    }

    /** Schedules a record to {@code to} with an explicit id, due after {@code delay}, and waits until it is pending. */
    String schedule(String to, String delay) {
        String id = "ops-" + ids.incrementAndGet();
        kafka.send(
                names.intake(),
                id,
                "value of " + id,
                null,
                DelayHeaders.TARGET,
                to,
                DelayHeaders.DELAY_MS,
                delay,
                DelayHeaders.ID,
                id,
                "trace-id",
                "t-" + id);
        await().atMost(Duration.ofSeconds(20))
                .until(() -> get(app, "/messages/" + id).status() == 200);
        return id;
    }

    void assertAudited(String... parts) {
        List<String> lines =
                audit.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
        assertTrue(
                lines.stream().anyMatch(line -> Arrays.stream(parts).allMatch(line::contains)),
                "no audit line with " + List.of(parts) + " in " + lines);
    }

    List<KafkaClient.Received> deliveredWithKey(String id) {
        return delivered.matching(r -> id.equals(r.key()));
    }

    double gaugeValue(String name) {
        return get(adminPort, "/metrics")
                .json()
                .get("gauges")
                .get(name)
                .get("value")
                .asDouble();
    }

    int gauge(String name) {
        return (int) gaugeValue(name);
    }

    @Override
    public void close() {
        Logger auditLog = (Logger) LoggerFactory.getLogger("delay-bridge.audit");
        auditLog.detachAppender(audit);
        bridge.close();
        kafka.close();
    }
}

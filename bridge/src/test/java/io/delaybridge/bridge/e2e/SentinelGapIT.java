package io.delaybridge.bridge.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.codahale.metrics.health.HealthCheck;
import io.delaybridge.bridge.SharedJvm;
import io.delaybridge.bridge.store.redis.RedisKeys;
import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.RedisSentinels;
import io.delaybridge.testkit.RedisServer;
import io.delaybridge.testkit.TestServers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.slf4j.LoggerFactory;

/**
 * A Sentinel fail-over with {@code redis.waitReplicas: 0} that loses the master's last writes, made deterministic: the
 * replica's processing of the replication stream is held ({@code CLIENT PAUSE WRITE} on the replica: it still reads the
 * stream, into its query buffer) while the bridge stores and commits a tail of records on the master; then the master is
 * SIGKILLed, the replica drops the link with the stream it had not processed, is unpaused, and the sentinels promote
 * it. The bridge finds the promoted master's position marks behind its committed offsets, says so in the log, counts it,
 * reads the tail again from Kafka, and every record is delivered.
 */
@ExtendWith(RealServersExtension.class)
@ResourceLock(SharedJvm.LOGGING_AND_THREADS) // no bridge starts in this JVM while it runs
class SentinelGapIT {

    private static final int PARTITIONS = 4;
    private static final int BEFORE = 20;
    private static final int TAIL = 40;

    @TempDir
    Path dir;

    @Test
    void aTailThatTheFailoverLostIsFoundReadAgainAndDelivered(TestServers servers) throws Exception {
        TestNames names = TestNames.unique(servers);
        String target = names.target("out");
        Logger repairLog = (Logger) LoggerFactory.getLogger("io.delaybridge.bridge.intake.StoreGapRepair");
        ListAppender<ILoggingEvent> log = new ListAppender<>();
        try (KafkaClient kafka = new KafkaClient(servers.kafkaBootstrap());
                RedisSentinels redis = RedisSentinels.start(dir, "gap")) {
            kafka.createTopics(1, target);
            KafkaClient.Collector delivered = kafka.collect(target);
            TestBridge bridge = new TestBridge(
                            names,
                            servers.kafkaBootstrap(),
                            redis.uri(),
                            TestBridge.set("redis.waitReplicas", "0"),
                            TestBridge.set("redis.commandTimeout", "2s"))
                    .start();
            log.start();
            repairLog.addAppender(log);
            try {
                for (int i = 0; i < BEFORE; i++) {
                    kafka.send(
                            names.intake(),
                            "k" + i,
                            "v" + i,
                            null,
                            DelayHeaders.TARGET,
                            target,
                            DelayHeaders.DELAY_MS,
                            "0");
                }
                await().atMost(Duration.ofSeconds(60))
                        .until(() -> delivered.values().size() == BEFORE);

                RedisServer replica = redis.replica();
                replica.call("CLIENT", "PAUSE", "60000", "WRITE");
                for (int i = BEFORE; i < BEFORE + TAIL; i++) {
                    kafka.send(
                            names.intake(),
                            "k" + i,
                            "v" + i,
                            null,
                            DelayHeaders.TARGET,
                            target,
                            DelayHeaders.DELAY_MS,
                            "12s");
                }
                kafka.flush();
                Map<Integer, Long> ends = new TreeMap<>();
                await().atMost(Duration.ofSeconds(60)).until(() -> {
                    ends.clear();
                    ends.putAll(kafka.committedOffsets(names.group(), names.intake()));
                    return ends.values().stream().mapToLong(Long::longValue).sum() == BEFORE + TAIL;
                });
                Map<Integer, Long> onReplica = positions(replica, names);
                long behind = ends.entrySet().stream()
                        .mapToLong(e -> e.getValue() - onReplica.getOrDefault(e.getKey(), 0L))
                        .sum();
                assertEquals(
                        TAIL,
                        behind,
                        "the replica holds the positions from before the tail: committed " + ends + ", replica "
                                + onReplica);

                redis.killMaster();
                long killedAt = System.nanoTime();
                // the replica drops the link and the stream it had not processed; then it may answer the sentinels'
                // PUBLISH again (a paused replica cannot be promoted: its sentinel links stall behind a PUBLISH)
                await().atMost(Duration.ofSeconds(30))
                        .until(() ->
                                ((String) replica.call("INFO", "replication")).contains("master_link_status:down"));
                replica.call("CLIENT", "UNPAUSE");
                redis.awaitFailover(Duration.ofSeconds(60));
                long promotedMillis = (System.nanoTime() - killedAt) / 1_000_000;
                long unpausedAt = System.nanoTime();

                await().atMost(Duration.ofSeconds(60)).until(() -> bridge.meter("delay.store.gaps") > 0);
                long detectedMillis = (System.nanoTime() - unpausedAt) / 1_000_000;
                await().atMost(Duration.ofSeconds(90))
                        .until(() -> delivered.values().size() == BEFORE + TAIL);

                long gaps = bridge.meter("delay.store.gaps");
                long reread = bridge.meter("delay.store.gap-records");
                System.out.printf(
                        "Sentinel fail-over with waitReplicas 0 lost the last %d records' writes: replica"
                                + " promoted %d ms after SIGKILL; the bridge found %d partition gaps %d ms after the replica was"
                                + " promoted, read %d records again; %d of %d records delivered (%d copies)%n",
                        TAIL,
                        promotedMillis,
                        gaps,
                        detectedMillis,
                        reread,
                        delivered.values().size(),
                        BEFORE + TAIL,
                        delivered.size());
                // the records the store lost are read again, no more
                bridge.awaitMeter("delay.store.gap-records", TAIL);
                assertTrue(
                        log.list.stream()
                                .anyMatch(e -> e.getLevel().toString().equals("WARN")
                                        && e.getFormattedMessage()
                                                .contains("Redis lost acknowledged writes of intake")),
                        "the gap is logged: " + log.list);
                Set<String> expected = new HashSet<>();
                for (int i = 0; i < BEFORE + TAIL; i++) {
                    expected.add("v" + i);
                }
                assertEquals(expected, delivered.values(), "every record delivered");
                HealthCheck.Result health =
                        bridge.support().getEnvironment().healthChecks().runHealthCheck("pipeline");
                assertTrue(health.isHealthy(), "Kafka still had the records: nothing is lost " + health);
            } finally {
                repairLog.detachAppender(log);
                bridge.stop();
            }
        }
    }

    /** The position marks a server holds, by intake partition. */
    private static Map<Integer, Long> positions(RedisServer server, TestNames names) {
        RedisKeys keys = new RedisKeys(names.keyPrefix(), names.intake(), PARTITIONS);
        Map<Integer, Long> positions = new TreeMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            Object value = server.call(
                    "HGET",
                    new String(keys.shard(keys.homeShard(p)).positions(), StandardCharsets.UTF_8),
                    Integer.toString(p));
            if (value != null) {
                positions.put(p, Long.parseLong((String) value));
            }
        }
        return positions;
    }
}

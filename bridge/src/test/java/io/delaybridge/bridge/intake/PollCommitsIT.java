package io.delaybridge.bridge.intake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.codahale.metrics.MetricRegistry;
import io.delaybridge.bridge.delivery.DeadletterMeters;
import io.delaybridge.bridge.time.RedisClock;
import io.delaybridge.bridge.time.Time;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.TestServers;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The commit rule: stored, deadlettered, settled, in poll order; the offsets committed to the real broker by a consumer
 * of a group that reads partition 0 of its own topic.
 */
@ExtendWith(RealServersExtension.class)
class PollCommitsIT {

    private final MetricRegistry registry = new MetricRegistry();
    private TopicPartition p0;
    private KafkaConsumer<byte[], byte[]> consumer;
    private PollCommits commits;

    @BeforeEach
    void assign(TestServers servers) throws Exception {
        String topic = servers.unique("poll-commits");
        p0 = new TopicPartition(topic, 0);
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, servers.kafkaBootstrap()))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        consumer = new KafkaConsumer<>(
                Map.<String, Object>of(
                        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        servers.kafkaBootstrap(),
                        ConsumerConfig.GROUP_ID_CONFIG,
                        topic,
                        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                        "false"),
                new ByteArrayDeserializer(),
                new ByteArrayDeserializer());
        consumer.assign(List.of(p0));
        commits = new PollCommits(
                new OffsetCommitter(
                        consumer,
                        new IntakeMetrics(registry, new DeadletterMeters(registry)),
                        Duration.ZERO,
                        Duration.ofMillis(100),
                        new RedisClock(Time.SYSTEM, () -> 0),
                        Time.SYSTEM),
                Time.SYSTEM);
    }

    @AfterEach
    void close() {
        consumer.close();
    }

    /** The offset the group has committed for partition 0, as the broker holds it; null if none. */
    private Long committed() {
        OffsetAndMetadata offset =
                consumer.committed(Set.of(p0), Duration.ofSeconds(30)).get(p0);
        return offset == null ? null : offset.offset();
    }

    @Test
    void aPollWithExpressRecordsCommitsOnlyOnceTheySettledAndThoseAfterItWait() {
        ExpressCommits.Poll first = commits.stored(poll(10, 2));
        assertNotNull(first, "express records settle on a handle");
        assertNotNull(commits.stored(poll(20, 0)), "a later plain poll waits behind the first");
        commits.commitIfDue();
        assertNull(committed(), "nothing settled: nothing committed");
        first.settle();
        commits.commitIfDue();
        assertNull(committed(), "one express record still on its way");
        first.settle();
        commits.commitIfDue();
        assertEquals(20, committed(), "both polls commit, in order, once the first settled");
    }

    @Test
    void aPlainPollWithNothingBeforeItCommitsAtOnce() {
        assertNull(commits.stored(poll(7, 0)));
        commits.commitIfDue();
        assertEquals(7, committed());
    }

    @Test
    void clearingForgetsWhatSettles() {
        ExpressCommits.Poll poll = commits.stored(poll(5, 1));
        commits.clear();
        commits.settleAll(10);
        commits.commitIfDue();
        assertNull(committed());
        assertNotNull(poll);
    }

    private IntakePoll poll(long next, int expressRecords) {
        List<IntakePoll.ExpressRecord> express = java.util.Collections.nCopies(expressRecords, null);
        return new IntakePoll(
                List.of(),
                express,
                List.of(),
                List.of(),
                Map.of(p0, new OffsetAndMetadata(next, "m")),
                Map.of(p0, next - 1),
                Long.MAX_VALUE,
                1);
    }
}

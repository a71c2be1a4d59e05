package io.delaybridge.bridge.intake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.codahale.metrics.MetricRegistry;
import io.delaybridge.bridge.delivery.DeadletterMeters;
import io.delaybridge.bridge.time.RedisClock;
import io.delaybridge.bridge.time.Time;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.internals.AutoOffsetResetStrategy;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** The commit rule: stored, deadlettered, settled, in poll order. */
class PollCommitsTest {

    private static final MetricRegistry REGISTRY = new MetricRegistry();
    private static final TopicPartition P0 = new TopicPartition("intake", 0);

    private final MockConsumer<byte[], byte[]> consumer = new MockConsumer<>(AutoOffsetResetStrategy.EARLIEST.name());
    private final PollCommits commits = new PollCommits(
            new OffsetCommitter(
                    consumer,
                    new IntakeMetrics(REGISTRY, new DeadletterMeters(REGISTRY)),
                    Duration.ZERO,
                    Duration.ofMillis(100),
                    new RedisClock(Time.SYSTEM, () -> 0),
                    Time.SYSTEM),
            Time.SYSTEM);

    PollCommitsTest() {
        consumer.assign(List.of(P0));
    }

    @Test
    void aPollWithExpressRecordsCommitsOnlyOnceTheySettledAndThoseAfterItWait() {
        ExpressCommits.Poll first = commits.stored(poll(10, 2));
        assertNotNull(first, "express records settle on a handle");
        assertNotNull(commits.stored(poll(20, 0)), "a later plain poll waits behind the first");
        commits.commitIfDue();
        assertNull(consumer.committed(java.util.Set.of(P0)).get(P0), "nothing settled: nothing committed");
        first.settle();
        commits.commitIfDue();
        assertNull(consumer.committed(java.util.Set.of(P0)).get(P0), "one express record still on its way");
        first.settle();
        commits.commitIfDue();
        assertEquals(
                20,
                consumer.committed(java.util.Set.of(P0)).get(P0).offset(),
                "both polls commit, in order, once the first settled");
    }

    @Test
    void aPlainPollWithNothingBeforeItCommitsAtOnce() {
        assertNull(commits.stored(poll(7, 0)));
        commits.commitIfDue();
        assertEquals(7, consumer.committed(java.util.Set.of(P0)).get(P0).offset());
    }

    @Test
    void clearingForgetsWhatSettles() {
        ExpressCommits.Poll poll = commits.stored(poll(5, 1));
        commits.clear();
        commits.settleAll(10);
        commits.commitIfDue();
        assertNull(consumer.committed(java.util.Set.of(P0)).get(P0));
        assertNotNull(poll);
    }

    private static IntakePoll poll(long next, int expressRecords) {
        List<IntakePoll.ExpressRecord> express = java.util.Collections.nCopies(expressRecords, null);
        return new IntakePoll(
                List.of(),
                express,
                List.of(),
                List.of(),
                Map.of(P0, new OffsetAndMetadata(next, "m")),
                Map.of(P0, next - 1),
                Long.MAX_VALUE,
                1);
    }
}

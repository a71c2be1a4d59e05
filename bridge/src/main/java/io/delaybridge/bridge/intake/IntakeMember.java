package io.delaybridge.bridge.intake;

import io.delaybridge.bridge.errors.Failures;
import io.delaybridge.bridge.store.DelayStore;
import io.delaybridge.bridge.time.RedisClock;
import io.delaybridge.bridge.time.Time;
import java.time.Duration;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The intake's member of the consumer group: its consumer and what works on it (the commits, the gap repair), the
 * close that leaves the group, and what a fence of the static member id does: rejoin with a new
 * consumer, or, when fences keep coming, stop ({@link FencedMember}). Either way it first lets the partitions go
 * without committing. Intake thread only, but for {@link #wakeup} and {@link #storeLoss}.
 */
final class IntakeMember {

    private static final Logger LOG = LoggerFactory.getLogger(IntakeLoop.class);

    private final Properties consumerProperties;
    private final IntakeSettings settings;
    private final DelayStore store;
    private final IntakeMetrics metrics;
    private final IntakeExpress express;
    private final StorePositions positions;
    private final PartitionListener partitionListener;
    private final RedisClock redisClock;
    private final Time time;
    /** Whether a fence of the static member id rejoins or stops. */
    private final FencedMember fences = new FencedMember();

    private volatile Consumer<byte[], byte[]> consumer;
    /** The commit rule and the committer, one per consumer. */
    private PollCommits commits;
    /** Finds and repairs what a Redis fail-over lost, one per consumer. */
    private volatile StoreGapRepair gaps;

    IntakeMember(
            Properties consumerProperties,
            IntakeSettings settings,
            IntakeStore target,
            IntakeMetrics metrics,
            IntakeExpress express,
            StorePositions positions,
            PartitionListener partitionListener) {
        this.consumerProperties = consumerProperties;
        this.settings = settings;
        this.store = target.store();
        this.redisClock = target.redisClock();
        this.time = redisClock.time();
        this.metrics = metrics;
        this.express = express;
        this.positions = positions;
        this.partitionListener = partitionListener;
    }

    /** A new consumer, and what works on it: the commits and the gap repair. */
    void connect() {
        consumer = new KafkaConsumer<>(consumerProperties, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        ExpressOffsets transactions = express.offsets(settings.topic()); // this consumer's, in shard transactions
        commits = new PollCommits(
                new OffsetCommitter(
                        consumer, metrics, settings.commitInterval(), settings.pollTimeout(), redisClock, time),
                transactions,
                time);
        gaps = new StoreGapRepair(consumer, store, positions, commits, metrics, time);
    }

    Consumer<byte[], byte[]> consumer() {
        return consumer;
    }

    PollCommits commits() {
        return commits;
    }

    StoreGapRepair gaps() {
        return gaps;
    }

    /** The last loss of acknowledged records that could not be repaired (Kafka no longer had them), or null. */
    String storeLoss() {
        StoreGapRepair repair = gaps;
        return repair == null ? null : repair.loss();
    }

    /** Wakes the consumer out of a poll, from any thread. */
    void wakeup() {
        Consumer<byte[], byte[]> current = consumer;
        if (current != null) {
            current.wakeup();
        }
    }

    /**
     * Closes the consumer for good: revokes the partitions (their shards finish in-flight sends first) and leaves the
     * group at once: a static member would otherwise keep its partitions, unowned, until its session timed out.
     */
    void closeLeaving() {
        try {
            consumer.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP));
        } catch (RuntimeException e) {
            LOG.warn("Closing the intake consumer failed: {}", Failures.describe(e));
        }
    }

    /**
     * The group fenced this instance's {@code group.instance.id} ({@link FencedMember}): unless fences keep coming, lets its
     * partitions and shards go, and after {@link FencedMember#REJOIN_DELAY} (cut short by {@code stopRequested}) joins
     * again with a new consumer; runs {@code interrupted} if interrupted meanwhile. Returns false (nothing released) when
     * fences keep coming and the intake must stop.
     */
    boolean rejoinAfterFence(IntakeRewind rewinds, CountDownLatch stopRequested, Runnable interrupted) {
        if (!fences.rejoin(time.nanoseconds())) {
            return false;
        }
        LOG.warn(FencedMember.rejoining(consumerProperties));
        release(rewinds);
        try {
            consumer.close(CloseOptions.timeout(Duration.ofSeconds(5))); // no leave: the id is not this consumer's
        } catch (RuntimeException e) {
            LOG.debug("Closing the fenced consumer: {}", Failures.describe(e));
        }
        try {
            stopRequested.await(FencedMember.REJOIN_DELAY.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            interrupted.run();
        }
        connect();
        return true;
    }

    /** Why the intake stops for good when fences of its static member id keep coming. */
    String fencedStopReason() {
        return FencedMember.stopping(consumerProperties);
    }

    /**
     * Lets everything of the partitions go without committing: the batches in flight and the offsets waiting (read
     * again by whoever owns the partitions next), and the shards, which the pump releases.
     */
    void release(IntakeRewind rewinds) {
        Set<TopicPartition> owned = consumer.assignment();
        commits.clear();
        rewinds.drop();
        if (!owned.isEmpty()) {
            partitionListener.revoked(
                    owned.stream().map(TopicPartition::partition).sorted().toList());
        }
    }
}

package io.delaybridge.bridge.delivery;

import io.delaybridge.bridge.time.Time;
import io.delaybridge.schemas.IntakeOrigin;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How far the intake's consumer group has committed, read with the admin client: a delivered message must be
 * remembered until its intake record lies below the committed offset. Until then a crash makes the intake read that
 * record again and store it again (it was delivered and deleted, so nothing stops it), and its new owner must ack it,
 * not send it a second time. Asked for by the commit thread at most every {@code refreshMillis}, answered
 * asynchronously.
 */
public final class IntakeCommits {

    private static final Logger LOG = LoggerFactory.getLogger(IntakeCommits.class);

    private final Admin admin;
    private final String groupId;
    private final long refreshNanos;
    private final Time time;
    private volatile Map<TopicPartition, OffsetAndMetadata> committed = Map.of();
    private long readAt = Long.MIN_VALUE / 2;
    private volatile boolean asking;

    public IntakeCommits(Admin admin, String groupId, long refreshMillis, Time time) {
        this.time = time;
        this.admin = admin;
        this.groupId = groupId;
        this.refreshNanos = TimeUnit.MILLISECONDS.toNanos(refreshMillis);
    }

    /**
     * Asks for the group's offsets again if the last answer is older than the refresh interval and no question is
     * out; never waits for the answer (the commit thread calls this, and a slow coordinator must not hold commits).
     */
    void refresh() {
        long now = time.nanoseconds();
        if (asking || now - readAt < refreshNanos) {
            return;
        }
        readAt = now;
        asking = true;
        try {
            admin.listConsumerGroupOffsets(groupId)
                    .partitionsToOffsetAndMetadata()
                    .whenComplete((offsets, error) -> {
                        if (error == null) {
                            committed = offsets;
                        } else {
                            LOG.debug("Reading the offsets of {} failed: {}", groupId, error.getMessage());
                        }
                        asking = false;
                    });
        } catch (RuntimeException e) {
            asking = false;
            LOG.debug("Reading the offsets of {} failed: {}", groupId, e.getMessage());
        }
    }

    /** The offset the group last committed for {@code partition} of {@code topic} as last read, or -1. */
    long committed(String topic, int partition) {
        OffsetAndMetadata at = committed.get(new TopicPartition(topic, partition));
        return at == null ? -1 : at.offset();
    }

    /**
     * Whether the intake committed past the record {@code parsed}: it will not be read again. False for null, an origin
     * that did not parse (kept: remembering costs little).
     */
    boolean committedPast(IntakeOrigin parsed) {
        if (parsed == null) {
            return false;
        }
        OffsetAndMetadata at = committed.get(new TopicPartition(parsed.topic(), parsed.partition()));
        return at != null && at.offset() > parsed.offset();
    }
}

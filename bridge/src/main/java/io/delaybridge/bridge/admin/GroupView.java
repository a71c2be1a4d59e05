package io.delaybridge.bridge.admin;

import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * The bridge's consumer group as Kafka sees it: which member owns which intake partition (so, which instance pumps
 * which shard) and how far the intake's committed offsets are behind the log end. Read through the Kafka admin client
 * at most every {@code cacheMillis}; a failed read keeps the last good view and reports the error.
 */
public final class GroupView {

    /** A snapshot: owner per shard ({@code clientId@host}), intake lag per partition, the error if the read failed. */
    public record Snapshot(Map<Integer, String> owners, Map<Integer, Long> lag, long readAt, String error) {
        public long totalLag() {
            return lag.values().stream().mapToLong(Long::longValue).sum();
        }
    }

    private final Admin admin;
    private final String groupId;
    private final String intakeTopic;
    private final Clock clock;
    private final long cacheMillis;
    private final long timeoutMillis;
    private Snapshot last = new Snapshot(Map.of(), Map.of(), 0, null);

    public GroupView(
            Admin admin, String groupId, String intakeTopic, Clock clock, long cacheMillis, long timeoutMillis) {
        this.admin = admin;
        this.groupId = groupId;
        this.intakeTopic = intakeTopic;
        this.clock = clock;
        this.cacheMillis = cacheMillis;
        this.timeoutMillis = timeoutMillis;
    }

    public synchronized Snapshot snapshot() {
        long now = clock.millis();
        if (last.readAt() != 0 && now - last.readAt() < cacheMillis) {
            return last;
        }
        try {
            last = read(now);
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            last = new Snapshot(last.owners(), last.lag(), now, "cannot read consumer group " + groupId + ": " + e);
        }
        return last;
    }

    private Snapshot read(long now) throws Exception {
        ConsumerGroupDescription group = admin.describeConsumerGroups(List.of(groupId))
                .describedGroups()
                .get(groupId)
                .get(timeoutMillis, TimeUnit.MILLISECONDS);
        Map<Integer, String> owners = new HashMap<>();
        for (MemberDescription member : group.members()) {
            for (TopicPartition tp : member.assignment().topicPartitions()) {
                if (tp.topic().equals(intakeTopic)) {
                    owners.put(
                            tp.partition(),
                            member.clientId() + "@" + member.host().replaceFirst("^/", ""));
                }
            }
        }
        Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(groupId)
                .partitionsToOffsetAndMetadata()
                .get(timeoutMillis, TimeUnit.MILLISECONDS);
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        int partitions = admin.describeTopics(List.of(intakeTopic))
                .allTopicNames()
                .get(timeoutMillis, TimeUnit.MILLISECONDS)
                .get(intakeTopic)
                .partitions()
                .size();
        for (int p = 0; p < partitions; p++) {
            latest.put(new TopicPartition(intakeTopic, p), OffsetSpec.latest());
        }
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends =
                admin.listOffsets(latest).all().get(timeoutMillis, TimeUnit.MILLISECONDS);
        Map<Integer, Long> lag = new HashMap<>();
        ends.forEach((tp, end) -> {
            OffsetAndMetadata at = committed.get(tp);
            lag.put(tp.partition(), Math.max(0, end.offset() - (at == null ? 0 : at.offset())));
        });
        return new Snapshot(Map.copyOf(owners), Map.copyOf(lag), now, null);
    }
}

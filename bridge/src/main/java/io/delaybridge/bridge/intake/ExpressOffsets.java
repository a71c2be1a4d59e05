package io.delaybridge.bridge.intake;

import io.delaybridge.bridge.delivery.TransactionOffsets;
import io.delaybridge.schemas.IntakeOrigin;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;

/**
 * The commit rule per intake partition with {@code delivery.exactlyOnce}: the express records of partition n go out in
 * the transactions of shard n's producer, and each such transaction commits the partition's offset with them
 * ({@link TransactionOffsets}), as far as the rule allows: past records that are stored, deadlettered, settled, or
 * delivered by that very transaction, never past an express record still on its way elsewhere. The plain commits of
 * {@link OffsetCommitter} go on beside it; both paths append a partition's offsets one at a time, under the
 * partition's lock, and never one below what either committed, so a partition's committed offset only moves forward
 * whatever path carried it.
 *
 * <p>The intake thread tells it what is stored ({@link #stored}, express records before the poll's end) and commits
 * through {@link #commitPlain}; express records settle on any thread; shard commit threads {@link #offer}.
 */
final class ExpressOffsets implements TransactionOffsets {

    /** How long a commit waits for the other path's commit of the same partition. */
    private static final long LOCK_MILLIS = 5_000;

    /** One intake partition: stored polls' ends, unsettled express records, the highest offset committed. */
    private static final class Lane {
        final ReentrantLock lock = new ReentrantLock();
        /** Next offsets after stored polls, ascending, above {@link #committed}. */
        final ArrayDeque<OffsetAndMetadata> ends = new ArrayDeque<>();
        /** Offsets of express records sent or parking and not settled. */
        final TreeSet<Long> unsettled = new TreeSet<>();
        /** The highest offset committed since the partition was assigned, by either path; -1: none. */
        long committed = -1;

        void committed(long offset) {
            committed = Math.max(committed, offset);
            while (!ends.isEmpty() && ends.peekFirst().offset() <= committed) {
                ends.pollFirst();
            }
        }
    }

    private final String topic;
    private final Map<Integer, Lane> lanes = new ConcurrentHashMap<>();
    private volatile ConsumerGroupMetadata group;

    ExpressOffsets(String topic) {
        this.topic = topic;
    }

    /** The intake consumer's group metadata as of now (intake thread, after a poll). */
    void group(ConsumerGroupMetadata current) {
        group = current;
    }

    /**
     * A poll is stored and its refused records deadlettered: its express records are on their way (registered first,
     * so no offer passes them), then its ends may be committed.
     */
    void stored(IntakePoll poll) {
        List<Long> at =
                poll.express().stream().map(IntakePoll.ExpressRecord::offset).toList();
        stored(
                poll.commit(),
                poll.express().stream().map(IntakePoll.ExpressRecord::partition).toList(),
                at);
    }

    /** As {@link #stored(IntakePoll)}: the poll's ends, and its express records' partitions and offsets. */
    void stored(Map<TopicPartition, OffsetAndMetadata> ends, List<Integer> partitions, List<Long> expressOffsets) {
        for (int i = 0; i < partitions.size(); i++) {
            Lane lane = lane(partitions.get(i));
            lane.lock.lock();
            try {
                lane.unsettled.add(expressOffsets.get(i));
            } finally {
                lane.lock.unlock();
            }
        }
        ends.forEach((partition, end) -> {
            if (!partition.topic().equals(topic)) {
                return;
            }
            Lane lane = lane(partition.partition());
            lane.lock.lock();
            try {
                while (!lane.ends.isEmpty() && lane.ends.peekLast().offset() >= end.offset()) {
                    lane.ends.pollLast(); // read again from an earlier position
                }
                if (end.offset() > lane.committed) {
                    lane.ends.addLast(end);
                }
            } finally {
                lane.lock.unlock();
            }
        });
    }

    /** An express record of {@code partition} at {@code offset} settled: delivered, or parked in the store. */
    void settled(int partition, long offset) {
        Lane lane = lanes.get(partition);
        if (lane == null) {
            return;
        }
        lane.lock.lock();
        try {
            lane.unsettled.remove(offset);
        } finally {
            lane.lock.unlock();
        }
    }

    @Override
    public Carry offer(int shard, Collection<IntakeOrigin> origins) {
        Lane lane = lanes.get(shard);
        ConsumerGroupMetadata metadata = group;
        if (lane == null || metadata == null || !tryLock(lane)) {
            return null;
        }
        long firstElsewhere = firstElsewhere(lane, shard, origins);
        OffsetAndMetadata end = null;
        for (OffsetAndMetadata candidate : lane.ends) {
            if (candidate.offset() > firstElsewhere) {
                break;
            }
            end = candidate;
        }
        if (end == null || end.offset() <= lane.committed) {
            lane.lock.unlock();
            return null;
        }
        Map<TopicPartition, OffsetAndMetadata> offsets = Map.of(new TopicPartition(topic, shard), end);
        long offset = end.offset();
        return new Carry() {
            @Override
            public Map<TopicPartition, OffsetAndMetadata> offsets() {
                return offsets;
            }

            @Override
            public ConsumerGroupMetadata group() {
                return metadata;
            }

            @Override
            public void ended(boolean committed) {
                if (committed) {
                    lane.committed(offset);
                }
                lane.lock.unlock();
            }
        };
    }

    /**
     * Commits {@code offsets} with {@code commitSync} (intake thread), leaving out partitions a transaction already
     * committed as far; the partitions' locks are held meanwhile, so no transaction appends between. Throws a
     * retriable exception if a transaction holds a partition too long (the offsets stay pending).
     */
    void commitPlain(
            Map<TopicPartition, OffsetAndMetadata> offsets,
            Consumer<Map<TopicPartition, OffsetAndMetadata>> commitSync) {
        List<Lane> held = new ArrayList<>();
        try {
            Map<TopicPartition, OffsetAndMetadata> forward = new HashMap<>();
            for (TopicPartition partition : offsets.keySet().stream()
                    .sorted(java.util.Comparator.comparing(TopicPartition::topic)
                            .thenComparingInt(TopicPartition::partition))
                    .toList()) {
                OffsetAndMetadata offset = offsets.get(partition);
                if (!partition.topic().equals(topic)) {
                    forward.put(partition, offset);
                    continue;
                }
                Lane lane = lane(partition.partition());
                if (!tryLock(lane)) {
                    throw new TimeoutException("a transaction is committing offsets of " + partition);
                }
                held.add(lane);
                if (offset.offset() > lane.committed) {
                    forward.put(partition, offset);
                }
            }
            if (!forward.isEmpty()) {
                commitSync.accept(forward);
            }
            forward.forEach((partition, offset) -> {
                Lane lane = lanes.get(partition.partition());
                if (partition.topic().equals(topic) && lane != null) {
                    lane.committed(offset.offset());
                }
            });
        } finally {
            held.forEach(lane -> lane.lock.unlock());
        }
    }

    /** Partitions gone (revoked, lost, read again from a gap): what was known of them goes. */
    void forget(Collection<TopicPartition> partitions) {
        partitions.forEach(partition -> lanes.remove(partition.partition()));
    }

    /** Everything goes (the group fenced this member). */
    void clear() {
        lanes.clear();
    }

    /**
     * The lowest unsettled express record of {@code lane} that is not one of {@code origins} (the transaction's), or
     * {@link Long#MAX_VALUE}. Under the lane's lock.
     */
    private long firstElsewhere(Lane lane, int shard, Collection<IntakeOrigin> origins) {
        if (lane.unsettled.isEmpty()) {
            return Long.MAX_VALUE; // no express record waits (a parked record's transaction): nothing to look up
        }
        Set<Long> inTransaction = new HashSet<>();
        for (IntakeOrigin origin : origins) {
            if (origin != null && origin.of(topic, shard)) {
                inTransaction.add(origin.offset());
            }
        }
        for (long offset : lane.unsettled) {
            if (!inTransaction.contains(offset)) {
                return offset;
            }
        }
        return Long.MAX_VALUE;
    }

    private Lane lane(int partition) {
        return lanes.computeIfAbsent(partition, p -> new Lane());
    }

    private static boolean tryLock(Lane lane) {
        try {
            return lane.lock.tryLock(LOCK_MILLIS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}

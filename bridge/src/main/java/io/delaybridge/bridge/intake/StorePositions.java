package io.delaybridge.bridge.intake;

import io.delaybridge.bridge.store.PositionMark;
import io.delaybridge.bridge.store.StoreGapException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * What the intake expects the store to hold of each partition, for the position marks written behind every poll
 * ({@link PositionMark}). Per partition two positions: the end of the last poll written to the store (in flight or
 * stored), which the next poll's mark expects, since the write pipeline keeps polls in order; and the end of the last
 * poll the store acknowledged, which a failure rewinds to and the idle check compares with. Both start at the committed
 * offset when a partition is assigned (if a bridge committed it) and move to wherever the consumer is sent back to read
 * again. Holds no connection; intake thread only.
 */
final class StorePositions {

    /** The end of the last poll written per partition: what the next poll's mark expects. */
    private final Map<TopicPartition, Long> written = new HashMap<>();
    /** The end of the last poll the store acknowledged per partition (or where reading started). */
    private final Map<TopicPartition, Long> stored = new HashMap<>();

    /** The marks to write behind {@code poll}, one per partition it read; the poll's ends are expected from now on. */
    List<PositionMark> marksFor(IntakePoll poll) {
        List<PositionMark> marks = new ArrayList<>(poll.commit().size());
        poll.commit().forEach((partition, offset) -> {
            Long expected = written.get(partition);
            marks.add(new PositionMark(
                    partition.partition(), expected == null ? PositionMark.UNKNOWN : expected, offset.offset()));
            written.put(partition, offset.offset());
        });
        return marks;
    }

    /** The store acknowledged {@code poll} with its marks. */
    void stored(IntakePoll poll) {
        poll.commit().forEach((partition, offset) -> stored.put(partition, offset.offset()));
    }

    /** The polls in flight were dropped (a failed write): the next poll expects what the store acknowledged. */
    void rewound() {
        written.clear();
        written.putAll(stored);
    }

    /** The consumer reads {@code partition} from {@code offset}, which the store holds everything before. */
    void readFrom(TopicPartition partition, long offset) {
        written.put(partition, offset);
        stored.put(partition, offset);
    }

    /**
     * Partitions assigned: each expects its committed offset if a bridge committed it (its metadata carries the store's
     * incarnation, {@link OffsetCommitter#incarnationMarker}); an offset set by a tool (a reset) or none sets no expectation.
     */
    void assigned(Collection<TopicPartition> partitions, Map<TopicPartition, OffsetAndMetadata> committed) {
        for (TopicPartition partition : partitions) {
            OffsetAndMetadata offset = committed.get(partition);
            if (offset != null
                    && offset.metadata() != null
                    && offset.metadata().startsWith(OffsetCommitter.INCARNATION_PREFIX)) {
                readFrom(partition, offset.offset());
            } else {
                written.remove(partition);
                stored.remove(partition);
            }
        }
    }

    /** Partitions that moved away. */
    void forget(Collection<TopicPartition> partitions) {
        written.keySet().removeAll(partitions);
        stored.keySet().removeAll(partitions);
    }

    /** The acknowledged positions of {@code owned} partitions not in {@code busy} (nothing of them in flight). */
    Map<TopicPartition, Long> idle(Set<TopicPartition> owned, Set<TopicPartition> busy) {
        Map<TopicPartition, Long> idle = new HashMap<>();
        stored.forEach((partition, position) -> {
            if (owned.contains(partition) && !busy.contains(partition)) {
                idle.put(partition, position);
            }
        });
        return idle;
    }

    /** The partitions of {@code expected} whose position in the store ({@code inStore}, by partition) is below it. */
    static List<StoreGapException.Gap> behind(Map<TopicPartition, Long> expected, Map<Integer, Long> inStore) {
        List<StoreGapException.Gap> gaps = new ArrayList<>();
        expected.forEach((partition, position) -> {
            Long found = inStore.get(partition.partition());
            if (found != null && found < position) {
                gaps.add(new StoreGapException.Gap(partition.partition(), found, position));
            }
        });
        gaps.sort((a, b) -> Integer.compare(a.partition(), b.partition()));
        return gaps;
    }
}

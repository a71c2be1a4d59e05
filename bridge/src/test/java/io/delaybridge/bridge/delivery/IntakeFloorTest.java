package io.delaybridge.bridge.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class IntakeFloorTest {

    private final AtomicLong group = new AtomicLong(-1);
    private final IntakeFloor floor = new IntakeFloor(3, group::get);

    @Test
    void startsFromTheRecordedFloorAndFollowsTheGroupUp() {
        assertEquals(-1, floor.forRecord(null), "nothing known");
        floor.recorded(120);
        assertEquals(120, floor.forRecord(null), "the last record's floor carries on");
        group.set(150);
        assertEquals(150, floor.forRecord(null));
    }

    @Test
    void neverFollowsTheGroupDownWhenKafkaLostCommits() {
        group.set(500);
        floor.recorded(floor.forRecord(null));
        group.set(40); // a coordinator that came back with older offsets
        assertEquals(500, floor.forRecord(null));
    }

    @Test
    void takesTheOffsetsItsOwnTransactionCarriesForItsOwnPartitionOnly() {
        group.set(100);
        Map<TopicPartition, OffsetAndMetadata> carried = Map.of(
                new TopicPartition("delay-intake", 3), new OffsetAndMetadata(180),
                new TopicPartition("delay-intake", 4), new OffsetAndMetadata(900));
        assertEquals(180, floor.forRecord(carry(carried)));
        assertEquals(100, floor.forRecord(null), "an aborted transaction's offsets do not count");
    }

    @Test
    void onlyARecordedFloorPassesARecord() {
        group.set(500);
        assertFalse(floor.passed(10), "the group's offset as read is not recorded yet");
        floor.recorded(floor.forRecord(null));
        assertTrue(floor.passed(499));
        assertFalse(floor.passed(500), "the floor is the next offset to read");
    }

    private static TransactionOffsets.Carry carry(Map<TopicPartition, OffsetAndMetadata> offsets) {
        return new TransactionOffsets.Carry() {
            @Override
            public Map<TopicPartition, OffsetAndMetadata> offsets() {
                return offsets;
            }

            @Override
            public ConsumerGroupMetadata group() {
                return new ConsumerGroupMetadata("g");
            }

            @Override
            public void ended(boolean committed) {}
        };
    }
}

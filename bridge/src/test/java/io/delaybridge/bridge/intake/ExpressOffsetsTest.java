package io.delaybridge.bridge.intake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.delaybridge.bridge.delivery.TransactionOffsets;
import io.delaybridge.schemas.IntakeOrigin;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** Exactly once: which intake offsets a shard's transaction commits with its express records, and the plain beside. */
class ExpressOffsetsTest {

    private static final TopicPartition P1 = new TopicPartition("intake", 1);

    private final ExpressOffsets offsets = new ExpressOffsets("intake");
    private final List<Map<TopicPartition, OffsetAndMetadata>> plain = new ArrayList<>();

    ExpressOffsetsTest() {
        offsets.group(new ConsumerGroupMetadata("group"));
    }

    @Test
    void aTransactionCommitsPastItsOwnExpressRecordsButNotPastOnesOnTheirWayElsewhere() {
        store(10, 5, 7); // records 0-9; express at 5 and 7
        store(20, 15); // records 10-19; express at 15
        TransactionOffsets.Carry carry = offsets.offer(1, List.of(origin(5), origin(7)));
        assertNotNull(carry);
        assertEquals(10, carry.offsets().get(P1).offset(), "its own records and the stored ones before them");
        carry.ended(true);

        assertNull(offsets.offer(1, List.of(origin(99))), "15 is on its way: nothing more to commit");
        offsets.settled(1, 5);
        offsets.settled(1, 7);
        TransactionOffsets.Carry next = offsets.offer(1, List.of(origin(15)));
        assertEquals(20, next.offsets().get(P1).offset());
        assertEquals("group", next.group().groupId());
        next.ended(false); // aborted: not committed
        TransactionOffsets.Carry again = offsets.offer(1, List.of(origin(15)));
        assertEquals(20, again.offsets().get(P1).offset(), "an aborted transaction's offsets are offered again");
        again.ended(true);
    }

    @Test
    void aPlainCommitNeverGoesBelowWhatATransactionCommitted() {
        store(10);
        store(20, 15);
        TransactionOffsets.Carry carry = offsets.offer(1, List.of(origin(15)));
        assertEquals(20, carry.offsets().get(P1).offset());
        carry.ended(true);

        offsets.commitPlain(Map.of(P1, new OffsetAndMetadata(10)), plain::add);
        assertEquals(List.of(), plain, "10 lies below the transaction's 20: not committed");
        store(30);
        offsets.commitPlain(Map.of(P1, new OffsetAndMetadata(30)), plain::add);
        assertEquals(List.of(Map.of(P1, new OffsetAndMetadata(30))), plain);
        assertNull(offsets.offer(1, List.of()), "and no transaction goes below the plain commit");
    }

    @Test
    void aPartitionForgottenOffersNothing() {
        store(10, 3);
        offsets.forget(List.of(P1));
        assertNull(offsets.offer(1, List.of(origin(3))));
    }

    private static IntakeOrigin origin(long offset) {
        return new IntakeOrigin("intake", 1, offset);
    }

    /** Stores a poll of partition 1 ending before {@code next}, with express records at {@code express}. */
    private void store(long next, long... express) {
        List<Long> at = java.util.Arrays.stream(express).boxed().toList();
        offsets.stored(Map.of(P1, new OffsetAndMetadata(next, "m")), java.util.Collections.nCopies(at.size(), 1), at);
    }
}

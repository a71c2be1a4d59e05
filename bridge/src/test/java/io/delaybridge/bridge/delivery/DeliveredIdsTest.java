package io.delaybridge.bridge.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class DeliveredIdsTest {

    private static final Sends.Message A = new Sends.Message("a", "intake/0/10", 0);
    private static final Sends.Message B = new Sends.Message("b", "intake/0/11", 0);

    private final DeliveredIds ids = new DeliveredIds();

    @Test
    void aConfirmedAckIsForgottenOnceItsRecordIsPast() {
        ids.committed(A);
        ids.acked(List.of("a"), true);
        ids.prune(message -> false);
        assertTrue(ids.wasDelivered("a", A.origin()), "kept while its intake record may be read again");
        ids.prune(message -> true);
        assertFalse(ids.wasDelivered("a", A.origin()));
        assertEquals(0, ids.size());
    }

    @Test
    void anAckRedisDidNotCarryOutInFullConfirmsNone() {
        ids.committed(A);
        ids.committed(B);
        // one of the two went back to the due set by its lease while being delivered: Redis deleted only one
        ids.acked(List.of("a", "b"), false);
        ids.prune(message -> true);
        assertTrue(ids.wasDelivered("a", A.origin()), "not forgotten: it may be claimed again");
        assertTrue(ids.wasDelivered("b", B.origin()));
    }

    @Test
    void oneNotConfirmedAndClaimedAgainIsAckedThenForgotten() {
        ids.committed(A);
        ids.acked(List.of("a"), false);
        ids.claimed(List.of("a"), true);
        ids.prune(message -> true);
        assertTrue(ids.wasDelivered("a", A.origin()), "released: acked, not sent");
        ids.released("a");
        ids.acked(List.of("a"), true);
        ids.prune(message -> true);
        assertEquals(0, ids.size());
    }

    @Test
    void oneNotConfirmedThatNoClaimTakesIsForgottenAfterTwoShortClaimsPastItsRecord() {
        ids.committed(A);
        ids.acked(List.of("a"), false);
        ids.claimed(List.of(), true);
        ids.prune(message -> false);
        assertEquals(1, ids.size(), "its record may still be read again");
        ids.prune(message -> true); // past: short claims count from now
        ids.claimed(List.of(), true);
        ids.prune(message -> true);
        assertEquals(1, ids.size(), "one short claim is not enough");
        ids.claimed(List.of(), true);
        ids.prune(message -> true);
        assertEquals(0, ids.size());
    }

    @Test
    void everyClaimOfAMessageIsHeldUntilItsReleaseWhateverTheAcksSay() {
        // claimed, then claimed twice more as its lease ran out while its release waited for the shard's producer
        ids.claimed(List.of("a"), false);
        ids.claimed(List.of("a"), false);
        ids.claimed(List.of("a"), false);
        ids.released("a"); // the first claim's release sent it
        ids.committed(A);
        ids.acked(List.of("a"), true); // its ack deleted it from flight, under the last claim: Redis counts it
        ids.prune(message -> true);
        assertTrue(ids.wasDelivered("a", A.origin()), "the second claim's release is acked, not sent");
        ids.released("a");
        ids.prune(message -> true);
        assertTrue(ids.wasDelivered("a", A.origin()), "and so is the third's");
        ids.released("a");
        ids.prune(message -> true);
        assertEquals(0, ids.size(), "every claim released, the ack confirmed: forgotten");
    }

    @Test
    void aReleaseOfAMessageNeverClaimedChangesNothing() {
        ids.committed(A);
        ids.claimed(List.of("a"), false);
        ids.released("b");
        ids.acked(List.of("a"), true);
        ids.prune(message -> true);
        assertTrue(ids.wasDelivered("a", A.origin()), "a's claim is not released yet");
    }

    @Test
    void learntFromTheLogAndAnotherOriginIsNotTheSameMessage() {
        ids.learn(List.of(A));
        assertTrue(ids.wasDelivered("a", A.origin()));
        assertFalse(ids.wasDelivered("a", "intake/0/99"), "a new record with the same id is sent");
        assertEquals(List.of("a"), List.copyOf(ids.listed().keySet()));
    }
}

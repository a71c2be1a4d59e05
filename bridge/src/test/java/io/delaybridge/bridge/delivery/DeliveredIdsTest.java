package io.delaybridge.bridge.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.schemas.IntakeOrigin;
import java.util.List;
import org.junit.jupiter.api.Test;

class DeliveredIdsTest {

    private static final Sends.Message A = new Sends.Message("a", "intake/0/10", 0);
    private static final Sends.Message B = new Sends.Message("b", "intake/0/11", 0);

    private final DeliveredIds ids = new DeliveredIds();

    @Test
    void aDeliveredRecordTheIntakeReadsAgainIsKeptUntilItsCopyStoredAgainWasClaimed() {
        // a store of offsets 10..11 failed halfway: 10 went through, was delivered and acked; the intake reads both
        // again
        ids.readAgain(10, new IntakeOrigin("intake", 0, 11));
        ids.committed(A);
        ids.acked(List.of("a"), true);
        // the intake stored 10 again (a new message with the same id) and committed past it
        ids.prune(origin -> true);
        assertTrue(ids.wasDelivered("a", A.origin()), "its copy stored again is due: a claim must ack it, not send it");
        ids.claimed(List.of(), true);
        ids.prune(origin -> true);
        assertTrue(ids.wasDelivered("a", A.origin()), "the first short claim may have been issued before the copy");
        ids.claimed(List.of(), true);
        ids.prune(origin -> true);
        assertEquals(0, ids.size(), "two short claims since the commit: any copy was claimed, and the range is over");
    }

    @Test
    void aRangeReadAgainCountsShortClaimsOnlyOnceTheIntakeCommittedPastIt() {
        ids.readAgain(10, new IntakeOrigin("intake", 0, 11));
        ids.committed(A);
        ids.acked(List.of("a"), true);
        ids.claimed(List.of(), true);
        ids.claimed(List.of(), true);
        ids.prune(origin -> origin.offset() != 11); // the last record read again is not committed yet
        assertTrue(ids.wasDelivered("a", A.origin()), "short claims before the copies were stored do not count");
        ids.prune(origin -> true);
        ids.claimed(List.of(), true);
        ids.claimed(List.of(), true);
        ids.prune(origin -> true);
        assertEquals(0, ids.size());
    }

    @Test
    void recordsOutsideARangeReadAgainAreForgottenAsBefore() {
        ids.readAgain(10, new IntakeOrigin("intake", 0, 10));
        Sends.Message otherPartition = new Sends.Message("c", "intake/1/10", 0);
        ids.committed(B); // offset 11, after the range
        ids.committed(otherPartition);
        ids.acked(List.of("b", "c"), true);
        ids.prune(origin -> true);
        assertEquals(0, ids.size());
    }

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
    void aCopyOfAMessageForgottenLatelyIsStillKnownAsDelivered() {
        ids.committed(A);
        ids.acked(List.of("a"), true);
        ids.prune(message -> true);
        assertFalse(ids.wasDelivered("a", A.origin()), "its rules let it go");
        assertFalse(ids.forgottenLately("b", B.origin()), "never delivered");
        assertFalse(ids.forgottenLately("a", "intake/0/99"), "the same id from another intake record is a new message");
        assertTrue(ids.forgottenLately("a", A.origin()), "a copy that comes back all the same is acked");
        assertTrue(ids.forgottenLately("a", A.origin()), "asked again (the transaction, then the hand-over)");
        assertEquals(1, ids.caughtAfterForgetting(), "one copy reported is counted once");
    }

    @Test
    void aForgottenMessageSaysWhetherARangeReadAgainCoveredIt() {
        ids.readAgain(10, new IntakeOrigin("intake", 0, 10));
        ids.committed(A);
        ids.committed(B);
        ids.acked(List.of("a", "b"), true);
        ids.prune(origin -> true);
        assertTrue(ids.whyForgotten(A.origin()).contains("10-10, not over"), ids.whyForgotten(A.origin()));
        ids.claimed(List.of(), true);
        ids.claimed(List.of(), true);
        ids.prune(origin -> true);
        assertTrue(ids.forgottenLately("a", A.origin()));
        assertTrue(ids.whyForgotten(A.origin()).contains("10-10, that ended"), ids.whyForgotten(A.origin()));
        assertEquals("no range read again covered it", ids.whyForgotten(B.origin()));
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
    void oneNotConfirmedThatNoClaimTakesIsForgottenOnceTheStoreSaysItIsGonePastItsRecord() {
        ids.committed(A);
        ids.acked(List.of("a"), false);
        ids.claimed(List.of(), true);
        ids.prune(message -> false);
        assertEquals(List.of(), ids.toAsk(), "its record may still be read again: not asked about");
        ids.prune(message -> true);
        List<String> asked = ids.toAsk();
        assertEquals(List.of("a"), asked);
        ids.stored(asked, id -> true); // still stored: it waits out a retry, due later
        ids.claimed(List.of(), true);
        ids.prune(message -> true);
        assertTrue(ids.wasDelivered("a", A.origin()), "short claims say nothing of a message due later");
        asked = ids.toAsk();
        ids.stored(asked, id -> false);
        ids.prune(message -> true);
        assertEquals(0, ids.size(), "gone from the store and past its record: forgotten");
    }

    @Test
    void learntFromTheLogAndWaitingOutARetryItsOwnerNeverKnewOfIsKeptUntilAClaimTakesIt() {
        // a new owner: the delivered log lists it; the previous owner's retry holds it in the due set, due later
        ids.learn(List.of(A));
        ids.prune(message -> true);
        for (int i = 0; i < 5; i++) {
            ids.claimed(List.of(), true);
            ids.stored(ids.toAsk(), id -> true);
            ids.prune(message -> true);
            assertTrue(ids.wasDelivered("a", A.origin()), "its backoff over, a claim takes it: acked, not sent again");
        }
        ids.claimed(List.of("a"), false);
        ids.released("a");
        ids.acked(List.of("a"), true);
        ids.prune(message -> true);
        assertEquals(0, ids.size());
    }

    @Test
    void oneARetrySentBackToTheDueSetIsKeptUntilAClaimTakesItHoweverManyShortClaimsCome() {
        // claimed twice (the first claim's lease ran out while its release waited): the second claim's release sent it,
        // the first one's was refused while that send was in a transaction, and its retry moved the message from
        // flight back to the due set, due after the retry's backoff
        ids.claimed(List.of("a"), false);
        ids.claimed(List.of("a"), false);
        ids.released("a");
        ids.retried("a");
        ids.released("a");
        ids.committed(A); // the transaction committed: delivered
        ids.acked(List.of("a"), false); // its ack found it in the due set, not in flight: not confirmed
        ids.prune(message -> true);
        for (int i = 0; i < 5; i++) {
            ids.claimed(List.of(), true); // short claims while it is not due yet: they cannot take it
            ids.prune(message -> true);
            assertTrue(ids.wasDelivered("a", A.origin()), "its backoff over, a claim takes it: acked, not sent again");
        }
        ids.claimed(List.of("a"), false); // due now: claimed
        ids.released("a"); // acked, as delivered
        ids.acked(List.of("a"), true);
        ids.prune(message -> true);
        assertEquals(0, ids.size(), "claimed, released and its ack confirmed: forgotten");
    }

    @Test
    void aRetriedMessageThatSettledIsNotForgottenBeforeAClaimTookIt() {
        ids.committed(A);
        ids.acked(List.of("a"), true);
        ids.retried("a"); // a late retry of an earlier claim: it will come back
        ids.prune(message -> true);
        assertTrue(ids.wasDelivered("a", A.origin()));
        ids.claimed(List.of("a"), false);
        ids.released("a");
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

package io.delaybridge.bridge.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class LearntIdsTest {

    @Test
    void anIdWhoseRecordTheIntakeHasNotCommittedPastIsNeverForgotten() {
        LearntIds learnt = new LearntIds();
        learnt.learn("a");
        for (int i = 0; i < 5; i++) {
            assertEquals(List.of(), learnt.shortClaim(), "the intake may still read it again and store it");
        }
        learnt.committedPast(id -> false);
        assertEquals(List.of(), learnt.shortClaim());
        assertTrue(!learnt.isEmpty());
    }

    @Test
    void oneIsForgottenOnlyAtTheSecondShortClaimAfterTheIntakeCommittedPastIt() {
        LearntIds learnt = new LearntIds();
        learnt.learn("a");
        learnt.learn("b");
        learnt.shortClaim(); // before any commit: counts for nothing
        learnt.committedPast(Set.of("a")::contains);
        assertEquals(
                List.of(),
                learnt.shortClaim(),
                "the first short claim may have been issued before the record was stored again");
        assertEquals(List.of("a"), learnt.shortClaim());
        learnt.committedPast(id -> true);
        learnt.committedPast(id -> true); // seen again: the count goes on, it does not start over
        assertEquals(List.of(), learnt.shortClaim());
        assertEquals(List.of("b"), learnt.shortClaim());
        assertTrue(learnt.isEmpty());
    }

    @Test
    void anIdAClaimTookLeavesTheLearntOnes() {
        LearntIds learnt = new LearntIds();
        learnt.learn("a");
        learnt.committedPast(id -> true);
        learnt.taken("a"); // claimed (and acked, not sent): the delivered map keeps it until its ack settles
        assertEquals(List.of(), learnt.shortClaim());
        assertEquals(List.of(), learnt.shortClaim());
        assertTrue(learnt.isEmpty());
    }
}

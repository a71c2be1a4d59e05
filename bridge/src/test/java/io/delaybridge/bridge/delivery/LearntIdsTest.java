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
            assertEquals(List.of(), learnt.shortClaim(id -> false), "the intake may still read it again and store it");
        }
        learnt.committedPast(id -> false);
        assertEquals(List.of(), learnt.shortClaim(id -> false));
        assertTrue(!learnt.isEmpty());
    }

    @Test
    void oneIsForgottenOnlyAtTheSecondShortClaimAfterTheIntakeCommittedPastIt() {
        LearntIds learnt = new LearntIds();
        learnt.learn("a");
        learnt.learn("b");
        learnt.shortClaim(id -> false); // before any commit: counts for nothing
        learnt.committedPast(Set.of("a")::contains);
        assertEquals(
                List.of(),
                learnt.shortClaim(id -> false),
                "the first short claim may have been issued before the record was stored again");
        assertEquals(List.of("a"), learnt.shortClaim(id -> false));
        learnt.committedPast(id -> true);
        learnt.committedPast(id -> true); // seen again: the count goes on, it does not start over
        assertEquals(List.of(), learnt.shortClaim(id -> false));
        assertEquals(List.of("b"), learnt.shortClaim(id -> false));
        assertTrue(learnt.isEmpty());
    }

    @Test
    void anIdWhoseMessageIsNotDueYetIsNeitherCountedNorForgotten() {
        LearntIds learnt = new LearntIds();
        learnt.learn("a");
        learnt.committedPast(id -> true);
        for (int i = 0; i < 5; i++) {
            assertEquals(List.of(), learnt.shortClaim(Set.of("a")::contains), "a retry's backoff: not due yet");
        }
        assertEquals(List.of(), learnt.shortClaim(id -> false), "due now: counting starts with this short claim");
        assertEquals(List.of("a"), learnt.shortClaim(id -> false));
    }

    @Test
    void anIdAClaimTookLeavesTheLearntOnes() {
        LearntIds learnt = new LearntIds();
        learnt.learn("a");
        learnt.committedPast(id -> true);
        learnt.taken("a"); // claimed (and acked, not sent): the delivered map keeps it until its ack settles
        assertEquals(List.of(), learnt.shortClaim(id -> false));
        assertEquals(List.of(), learnt.shortClaim(id -> false));
        assertTrue(learnt.isEmpty());
    }
}

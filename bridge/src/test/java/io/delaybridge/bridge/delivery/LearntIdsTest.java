package io.delaybridge.bridge.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class LearntIdsTest {

    @Test
    void anIdWhoseRecordTheIntakeHasNotCommittedPastIsNeverAskedAbout() {
        LearntIds learnt = new LearntIds();
        learnt.learn("a");
        assertEquals(List.of(), learnt.toAsk(), "the intake may still read it again and store it");
        learnt.committedPast(id -> false);
        assertEquals(List.of(), learnt.toAsk());
        assertFalse(learnt.isEmpty());
    }

    @Test
    void oneIsForgottenOnlyWhenTheStoreAskedAfterTheIntakeCommittedPastItNoLongerHoldsIt() {
        LearntIds learnt = new LearntIds();
        learnt.learn("a");
        learnt.learn("b");
        learnt.committedPast(Set.of("a")::contains);
        List<String> asked = learnt.toAsk();
        assertEquals(List.of("a"), asked);
        assertEquals(List.of(), learnt.toAsk(), "asked once at a time");
        assertEquals(List.of("a"), learnt.answered(asked, id -> false));
        learnt.committedPast(id -> true);
        assertEquals(List.of("b"), learnt.toAsk());
        assertFalse(learnt.isEmpty());
    }

    @Test
    void oneTheStoreStillHoldsIsKeptAndAskedAboutAgainHoweverOften() {
        // a retry's backoff: the message waits in the due set, due later; no short claim can take it before then
        LearntIds learnt = new LearntIds();
        learnt.learn("a");
        learnt.committedPast(id -> true);
        for (int i = 0; i < 5; i++) {
            List<String> asked = learnt.toAsk();
            assertEquals(List.of("a"), asked);
            assertEquals(List.of(), learnt.answered(asked, id -> true), "still stored: remembered");
        }
        assertFalse(learnt.isEmpty());
    }

    @Test
    void anIdTakenOrLearntAgainWhileTheStoreIsAskedIsNotForgottenByThatAnswer() {
        LearntIds learnt = new LearntIds();
        learnt.learn("a");
        learnt.learn("b");
        learnt.committedPast(id -> true);
        List<String> asked = learnt.toAsk();
        learnt.taken("a"); // claimed meanwhile: acked, not sent
        learnt.taken("b");
        learnt.learn("b"); // and its ack found it out of flight: learnt again, its record not known past yet
        assertEquals(List.of(), learnt.answered(asked, id -> false));
        assertFalse(learnt.isEmpty(), "b waits for the intake and a new question");
        learnt.committedPast(id -> true);
        assertEquals(List.of("b"), learnt.toAsk());
    }
}

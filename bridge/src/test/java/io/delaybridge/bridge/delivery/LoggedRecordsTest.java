package io.delaybridge.bridge.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * What a shard's next record of the delivered log lists and where it points: each delivery once, every remembered
 * message reachable from the last record, a pointer never crossing two records of one key.
 */
class LoggedRecordsTest {

    private final DeliveredIds delivered = new DeliveredIds();
    private final LoggedRecords logged = new LoggedRecords();
    private long offset = 100;

    @Test
    void theFirstRecordListsAllThatIsRememberedAndLaterOnesTheirOwnAndAPointer() {
        delivered.learn(List.of(message(1), message(2))); // read from the log when the shard was opened
        LoggedRecords.Plan first = commit(List.of(message(3)));
        assertTrue(first.whole());
        assertEquals(Set.of(1L, 2L, 3L), offsets(first));
        assertEquals(-1, first.readFrom());

        LoggedRecords.Plan second = commit(List.of(message(4)));
        assertEquals(Set.of(4L), offsets(second), "listed once: 1 to 3 are in the first record");
        assertEquals(100, second.readFrom(), "points to the first record");
        assertNotEquals(first.slot(), second.slot());
    }

    @Test
    void aRecordWhoseMessagesAreAllForgottenIsNoLongerPointedTo() {
        commit(List.of(message(1)));
        commit(List.of(message(2)));
        forget(message(1));
        LoggedRecords.Plan third = commit(List.of(message(3)));
        assertEquals(101, third.readFrom(), "the first record lists nothing remembered now");
        forget(message(2));
        forget(message(3));
        LoggedRecords.Plan fourth = commit(List.of(message(4)));
        assertEquals(-1, fourth.readFrom(), "nothing earlier is remembered");
        assertEquals(1, logged.pointedTo(), "only the fourth record is kept");
    }

    @Test
    void aRecordAsManyRecordsBackAsThereAreSlotsHasItsRememberedMessagesCarried() {
        commit(List.of(message(1), message(2)));
        forget(message(2));
        Set<Integer> slots = new HashSet<>();
        for (int i = 1; i < LoggedRecords.SLOTS; i++) {
            LoggedRecords.Plan plan = commit(List.of(message(10 + i)));
            assertEquals(100, plan.readFrom(), "record " + i + " still reaches the first");
            slots.add(plan.slot());
        }
        LoggedRecords.Plan carrying = commit(List.of(message(1_000)));
        assertEquals(Set.of(1L, 1_000L), offsets(carrying), "message 1, still remembered, is listed again");
        assertEquals(101, carrying.readFrom(), "points to the second record now");
        slots.add(carrying.slot());
        assertEquals(LoggedRecords.SLOTS, slots.size(), "a pointer crosses records of distinct keys only");
    }

    @Test
    void anAbortedTransactionsRecordChangesNothingAndAnOpeningStartsWholeAgain() {
        commit(List.of(message(1)));
        LoggedRecords.Plan aborted = logged.plan(delivered, List.of(message(2))); // never committed
        LoggedRecords.Plan next = commit(List.of(message(3)));
        assertEquals(100, next.readFrom());
        assertFalse(offsets(next).contains(2L), "the aborted record's message was never delivered");
        assertNotEquals(aborted.slot(), next.slot(), "an aborted record's slot is not taken again at once");

        logged.opened();
        LoggedRecords.Plan reopened = commit(List.of(message(4)));
        assertTrue(reopened.whole());
        assertEquals(Set.of(1L, 3L, 4L), offsets(reopened));
    }

    /** Plans a record for {@code sends}, commits it at the next offset, and remembers the sends as delivered. */
    private LoggedRecords.Plan commit(List<Sends.Message> sends) {
        LoggedRecords.Plan plan = logged.plan(delivered, sends);
        logged.committed(plan, offset++);
        sends.forEach(delivered::committed);
        return plan;
    }

    /** Redis confirmed {@code message}'s ack and its intake record will not be read again: it is forgotten. */
    private void forget(Sends.Message message) {
        delivered.acked(List.of(message.id()), true);
        delivered.prune(place -> place.equals(message.place()));
    }

    private static Sends.Message message(long offset) {
        return new Sends.Message("delay-intake-3-" + offset, "delay-intake/3/" + offset, 0);
    }

    private static Set<Long> offsets(LoggedRecords.Plan plan) {
        Set<Long> offsets = new HashSet<>();
        plan.messages().forEach(m -> offsets.add(Long.parseLong(m.id().substring("delay-intake-3-".length()))));
        return offsets;
    }
}

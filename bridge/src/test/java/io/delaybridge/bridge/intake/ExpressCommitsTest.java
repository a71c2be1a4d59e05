package io.delaybridge.bridge.intake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.bridge.time.Time;
import java.util.Map;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class ExpressCommitsTest {

    private static final TopicPartition P0 = new TopicPartition("intake", 0);
    private static final TopicPartition P1 = new TopicPartition("intake", 1);

    @Test
    void offsetsAreHandedOutInPollOrderOnlyOnceEachPollSettled() {
        ExpressCommits commits = new ExpressCommits(Time.SYSTEM);
        ExpressCommits.Poll first = commits.add(Map.of(P0, offset(10)), 2);
        ExpressCommits.Poll second = commits.add(Map.of(P0, offset(20), P1, offset(5)), 1);

        commits.settled(second);
        assertFalse(commits.oldestSettled());
        assertEquals(Map.of(), commits.takeSettled(), "the younger poll settled first: it waits for the older");
        commits.settled(first);
        assertEquals(Map.of(), commits.takeSettled(), "one express record of the older poll is still on its way");
        commits.settled(first);
        assertTrue(commits.oldestSettled());
        assertEquals(Map.of(P0, offset(20), P1, offset(5)), commits.takeSettled());
        assertEquals(0, commits.size());
    }

    @Test
    void aPollWithoutExpressRecordsCommitsAsSoonAsThoseBeforeIt() {
        ExpressCommits commits = new ExpressCommits(Time.SYSTEM);
        commits.add(Map.of(P0, offset(3)), 0);
        assertEquals(Map.of(P0, offset(3)), commits.takeSettled());
        assertThrows(IllegalStateException.class, () -> commits.settled(commits.add(Map.of(), 0)));
    }

    @Test
    void aHandOverWaitsForExpressRecordsSettledOnAnotherThread() throws InterruptedException {
        ExpressCommits commits = new ExpressCommits(Time.SYSTEM);
        ExpressCommits.Poll poll = commits.add(Map.of(P0, offset(1)), 1);
        assertFalse(commits.awaitAllSettled(20));
        new Thread(() -> commits.settled(poll)).start();
        assertTrue(commits.awaitAllSettled(10_000));
        commits.clear();
        assertEquals(Map.of(), commits.takeSettled());
    }

    @Test
    void anAbandonedRecordNoLongerHoldsUpOtherPartitionsButItsOwnIsNeverCommittedPastIt() {
        ExpressCommits commits = new ExpressCommits(Time.SYSTEM);
        ExpressCommits.Poll first = commits.add(Map.of(P0, offset(10), P1, offset(4)), 1);
        commits.add(Map.of(P0, offset(20), P1, offset(8)), 0);

        first.abandon(0); // its express record of partition 0 is left for the partition's new owner
        assertTrue(commits.oldestSettled(), "the poll waits no longer");
        assertEquals(Map.of(P1, offset(8)), commits.takeSettled(), "partition 1 goes on; partition 0 is not committed");
    }

    private static OffsetAndMetadata offset(long offset) {
        return new OffsetAndMetadata(offset, "m");
    }
}

package io.delaybridge.bridge.intake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.codahale.metrics.MetricRegistry;
import io.delaybridge.bridge.delivery.DeadletterMeters;
import io.delaybridge.bridge.time.RedisClock;
import io.delaybridge.bridge.time.Time;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** The commit pacing of {@link OffsetCommitter} (pure logic over the monotonic times it is given) and its marker. */
class OffsetCommitterTest {

    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long T0 = 3_000_000_000L; // monotonic
    private static final long REDIS_NOW = 1_700_000_000_000L; // epoch ms
    private static final long NONE = Long.MAX_VALUE;

    private static OffsetCommitter pacer(long intervalMillis) {
        MetricRegistry registry = new MetricRegistry();
        return new OffsetCommitter(
                new MockConsumer<>("earliest"),
                new IntakeMetrics(registry, new DeadletterMeters(registry)),
                Duration.ofMillis(intervalMillis),
                Duration.ofMillis(100),
                new RedisClock(Time.SYSTEM, () -> 0),
                Time.SYSTEM);
    }

    @Test
    void withoutAnIntervalEveryStoredBatchIsCommittedAtOnce() {
        OffsetCommitter pacer = pacer(0);
        assertFalse(pacer.paced());
        assertFalse(pacer.mayWait(REDIS_NOW + 3_600_000, false, REDIS_NOW));
        pacer.stored(false, T0);
        assertTrue(pacer.due(T0));
        assertEquals(0, pacer.nanosUntilDue(T0));
    }

    @Test
    void aBatchMayWaitOnlyIfNothingInItIsDueWithinTheIntervalPlusTheGuard() {
        OffsetCommitter pacer = pacer(100);
        long margin = 100 + OffsetCommitter.GUARD_MILLIS;
        assertTrue(pacer.mayWait(REDIS_NOW + margin + 1, false, REDIS_NOW));
        assertFalse(pacer.mayWait(REDIS_NOW + margin, false, REDIS_NOW), "due right at the margin");
        assertFalse(pacer.mayWait(REDIS_NOW - 5_000, false, REDIS_NOW), "already due");
        assertFalse(
                pacer.mayWait(REDIS_NOW + 3_600_000, true, REDIS_NOW),
                "a refused record's deadletter copy would be written twice on a re-read");
        assertFalse(pacer.mayWait(REDIS_NOW + 3_600_000, false, NONE), "Redis' clock unknown");
        assertTrue(pacer.mayWait(NONE, false, NONE), "cancels only: nothing of it is ever delivered");
    }

    @Test
    void waitingOffsetsAreCommittedOneIntervalAfterTheFirstOfThemWasStored() {
        OffsetCommitter pacer = pacer(100);
        assertFalse(pacer.due(T0), "nothing waits");
        assertEquals(NONE, pacer.nanosUntilDue(T0));
        pacer.stored(true, T0);
        pacer.stored(true, T0 + 60 * MS); // joins the commit planned for the first
        assertFalse(pacer.due(T0 + 99 * MS));
        assertEquals(40 * MS, pacer.nanosUntilDue(T0 + 60 * MS));
        assertTrue(pacer.due(T0 + 100 * MS));
        pacer.clearPacing();
        assertFalse(pacer.due(T0 + 200 * MS));
        pacer.stored(true, T0 + 200 * MS);
        assertEquals(100 * MS, pacer.nanosUntilDue(T0 + 200 * MS), "a new interval starts with the next batch");
    }

    @Test
    void aBatchThatMayNotWaitBringsTheCommitForward() {
        OffsetCommitter pacer = pacer(100);
        pacer.stored(true, T0);
        pacer.stored(false, T0 + 10 * MS);
        assertTrue(pacer.due(T0 + 10 * MS));
    }

    @Test
    void aFailedCommitIsTriedAgainAfterTheRetryTimeOrWithTheNextUrgentBatch() {
        OffsetCommitter pacer = pacer(100);
        pacer.stored(false, T0);
        pacer.commitFailed(T0, 50 * MS);
        assertFalse(pacer.due(T0 + 49 * MS));
        assertTrue(pacer.due(T0 + 50 * MS));
        pacer.commitFailed(T0 + 50 * MS, 50 * MS);
        pacer.stored(false, T0 + 60 * MS);
        assertTrue(pacer.due(T0 + 60 * MS));
    }

    private static final TopicPartition P0 = new TopicPartition("intake", 0);
    private static final TopicPartition P1 = new TopicPartition("intake", 1);

    @Test
    void theIncarnationMarkerCarriesTheIncarnation() {
        assertEquals("delay-store-incarnation=abc", OffsetCommitter.incarnationMarker("abc"));
    }

    @Test
    void offsetsOfTheSameIncarnationUnmarkedOrNeverCommittedPass() {
        Map<TopicPartition, OffsetAndMetadata> committed = new HashMap<>();
        committed.put(P0, new OffsetAndMetadata(10, OffsetCommitter.incarnationMarker("abc")));
        committed.put(P1, new OffsetAndMetadata(3, "committed by a tool"));
        committed.put(new TopicPartition("intake", 2), null);
        assertNull(OffsetCommitter.incarnationMismatch(committed, "abc"));
    }

    @Test
    void anOffsetOfAnotherIncarnationIsNamedWithBothIncarnations() {
        String mismatch = OffsetCommitter.incarnationMismatch(
                Map.of(P1, new OffsetAndMetadata(42, OffsetCommitter.incarnationMarker("old"))), "new");
        assertTrue(mismatch.contains("offset 42 of intake-1"), mismatch);
        assertTrue(mismatch.contains("incarnation old"), mismatch);
        assertTrue(mismatch.contains("incarnation new"), mismatch);
    }
}

package io.delaybridge.bridge.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The local side of a shared cap, on a steppable clock and a source the test answers by hand. */
class SharedBucketTest {

    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    /** A source whose requests wait for the test to answer them. */
    private static final class HandSource implements SharedBucket.Source {
        final List<Integer> asked = new ArrayList<>();
        final List<CompletableFuture<SharedBucket.Tokens>> open = new ArrayList<>();

        @Override
        public CompletableFuture<SharedBucket.Tokens> take(int want) {
            asked.add(want);
            CompletableFuture<SharedBucket.Tokens> answer = new CompletableFuture<>();
            open.add(answer);
            return answer;
        }

        void grant(int granted, long waitNanos) {
            open.remove(0).complete(new SharedBucket.Tokens(granted, waitNanos));
        }
    }

    @Test
    void tokensComeInBatchesOfATwentiethOfASecondAndTheNextIsAskedForAtHalf() {
        HandSource source = new HandSource();
        SharedBucket bucket = new SharedBucket("t", 200, source); // batch 10, expiry 50 ms
        long now = 1_000 * MS;

        assertFalse(bucket.tryTake(now), "nothing before the first grant");
        assertEquals(List.of(10), source.asked, "one request, for a batch");
        assertFalse(bucket.tryTake(now), "one request at a time");
        assertEquals(1, source.asked.size());
        assertTrue(bucket.nanosUntil(now, 1) >= SharedBucket.ASKING_NANOS, "a request is on its way");

        source.grant(10, 0);
        for (int i = 0; i < 5; i++) {
            assertTrue(bucket.tryTake(now + i), "token " + i);
        }
        assertEquals(1, source.asked.size(), "more than half left: no request yet");
        assertTrue(bucket.tryTake(now + 5));
        assertEquals(2, source.asked.size(), "under half: the next batch is asked for");
        assertEquals(0, bucket.nanosUntil(now + 5, 4));
    }

    @Test
    void tokensNotUsedWithinAnExpiryAreDroppedNotSavedUp() {
        HandSource source = new HandSource();
        SharedBucket bucket = new SharedBucket("t", 200, source);
        long now = 1_000 * MS;
        bucket.tryTake(now);
        source.grant(10, 0);
        assertEquals(10, bucket.tokens(now + 49 * MS));
        assertEquals(0, bucket.tokens(now + 50 * MS), "a batch is usable for the 50 ms the cap takes to earn it");
        assertFalse(bucket.tryTake(now + 50 * MS));
        assertEquals(2, source.asked.size(), "and a new batch is asked for");
    }

    @Test
    void aSourceWithNoTokensLeftIsAskedAgainWhenItSaysOneIsFree() {
        HandSource source = new HandSource();
        SharedBucket bucket = new SharedBucket("t", 200, source);
        long now = 1_000 * MS;
        bucket.tryTake(now);
        source.grant(0, 7 * MS);

        assertFalse(bucket.tryTake(now + 6 * MS));
        assertEquals(1, source.asked.size(), "not before the source said");
        assertTrue(bucket.nanosUntil(now + 6 * MS, 1) >= MS);
        assertFalse(bucket.tryTake(now + 7 * MS));
        assertEquals(2, source.asked.size());
    }

    @Test
    void aFailedRequestIsTriedAgainAfterAPause() {
        HandSource source = new HandSource();
        SharedBucket bucket = new SharedBucket("t", 200, source);
        long now = 1_000 * MS;
        bucket.tryTake(now);
        source.open.remove(0).completeExceptionally(new IllegalStateException("Redis is down"));

        assertFalse(bucket.tryTake(now + SharedBucket.RETRY_NANOS - 1));
        assertEquals(1, source.asked.size());
        assertFalse(bucket.tryTake(now + SharedBucket.RETRY_NANOS));
        assertEquals(2, source.asked.size(), "asked again after the pause");
        source.grant(10, 0);
        assertTrue(bucket.tryTake(now + SharedBucket.RETRY_NANOS + 1));
    }

    @Test
    void nanosUntilCountsTheTokensStillToEarnAtTheCap() {
        HandSource source = new HandSource();
        SharedBucket bucket = new SharedBucket("t", 100, source); // batch 5
        long now = 1_000 * MS;
        bucket.tryTake(now);
        source.grant(5, 0);
        assertEquals(0, bucket.nanosUntil(now, 5));
        assertEquals(50 * MS, bucket.nanosUntil(now, 10), "5 more at 100/s");
        assertEquals(5, SharedBucket.batchFor(100));
        assertEquals(1, SharedBucket.batchFor(3));
    }
}

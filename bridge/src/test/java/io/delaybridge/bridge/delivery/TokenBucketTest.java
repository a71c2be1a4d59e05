package io.delaybridge.bridge.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The token bucket under a clock the test moves. */
class TokenBucketTest {

    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);
    private static final long T0 = 123_456_789L;

    @Test
    void aFullBucketLetsTheBurstGoThenOnePerInterval() {
        TokenBucket bucket = new TokenBucket(200, 20);
        for (int i = 0; i < 20; i++) {
            assertTrue(bucket.tryTake(T0), "burst token " + i);
        }
        assertFalse(bucket.tryTake(T0), "the burst is spent");
        assertFalse(bucket.tryTake(T0 + SECOND / 200 - 1), "not before one interval");
        assertTrue(bucket.tryTake(T0 + SECOND / 200));
        assertFalse(bucket.tryTake(T0 + SECOND / 200));
    }

    @Test
    void anIdleBucketStoresNoMoreThanItsBurst() {
        TokenBucket bucket = new TokenBucket(10, 3);
        assertTrue(bucket.tryTake(T0));
        int taken = 0;
        while (bucket.tryTake(T0 + 3_600 * SECOND)) {
            taken++;
        }
        assertEquals(3, taken, "an hour idle stores the burst, not 36,000 tokens");
    }

    @Test
    void nanosUntilTellsWhenTheNthWaitingMessageCanGo() {
        TokenBucket bucket = new TokenBucket(100, 1);
        assertEquals(0, bucket.nanosUntil(T0, 1));
        assertTrue(bucket.tryTake(T0));
        assertEquals(SECOND / 100, bucket.nanosUntil(T0, 1));
        assertEquals(5 * SECOND / 100, bucket.nanosUntil(T0, 5));
        assertEquals(4 * SECOND / 100, bucket.nanosUntil(T0 + SECOND / 100, 5));
    }

    @Test
    void aFractionalCapWorks() {
        TokenBucket bucket = new TokenBucket(0.5, 1);
        assertTrue(bucket.tryTake(T0));
        assertFalse(bucket.tryTake(T0 + SECOND));
        assertTrue(bucket.tryTake(T0 + 2 * SECOND));
    }

    @Test
    void noOneSecondWindowSeesMoreThanTheCapPlusTheBurst() {
        int cap = 200;
        TokenBucket bucket = new TokenBucket(cap, TokenBucket.burstFor(cap));
        Random random = new Random(7);
        List<Long> sent = new ArrayList<>();
        long now = T0;
        for (int i = 0; i < 200_000; i++) {
            now += random.nextInt(2_000_000); // callers arrive at random, at times in bursts, often idle
            if (i % 5_000 == 0) {
                now += 3 * SECOND;
            }
            if (bucket.tryTake(now)) {
                sent.add(now);
            }
        }
        int most = 0;
        for (int from = 0, to = 0; to < sent.size(); to++) {
            while (sent.get(to) - sent.get(from) >= SECOND) {
                from++;
            }
            most = Math.max(most, to - from + 1);
        }
        assertTrue(most <= cap + TokenBucket.burstFor(cap), "most in one second: " + most);
        assertTrue(most >= cap, "the cap is reached under load: " + most);
    }

    @Test
    void burstIsATenthOfASecondAtLeastOne() {
        assertEquals(20, TokenBucket.burstFor(200));
        assertEquals(1, TokenBucket.burstFor(0.5));
        assertEquals(1, TokenBucket.burstFor(5));
    }

    @Test
    void aRateThatIsNoCapIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new TokenBucket(0, 1));
        assertThrows(IllegalArgumentException.class, () -> new TokenBucket(Double.NaN, 1));
        assertThrows(IllegalArgumentException.class, () -> new TokenBucket(10, 0));
    }
}

package io.delaybridge.connectors.spring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;

class RetryBackOffTest {

    @Test
    void fixedWaitsTheSameBeforeEveryRetry() {
        RetryBackOff b = RetryBackOff.fixed(Duration.ofSeconds(5));
        assertEquals(Duration.ofSeconds(5), b.delayBefore(1));
        assertEquals(Duration.ofSeconds(5), b.delayBefore(7));
    }

    @Test
    void exponentialDoublesUpToItsCap() {
        RetryBackOff b = RetryBackOff.exponential(Duration.ofSeconds(1), 2.0, Duration.ofSeconds(10));
        assertEquals(Duration.ofSeconds(1), b.delayBefore(1));
        assertEquals(Duration.ofSeconds(2), b.delayBefore(2));
        assertEquals(Duration.ofSeconds(8), b.delayBefore(4));
        assertEquals(Duration.ofSeconds(10), b.delayBefore(5));
        assertEquals(Duration.ofSeconds(10), b.delayBefore(500), "no overflow far out");
    }

    @Test
    void aListIsTakenInOrderAndItsLastDelayRepeats() {
        RetryBackOff b = RetryBackOff.of(Duration.ofSeconds(1), Duration.ofSeconds(30), Duration.ofMinutes(10));
        assertEquals(Duration.ofSeconds(1), b.delayBefore(1));
        assertEquals(Duration.ofSeconds(30), b.delayBefore(2));
        assertEquals(Duration.ofMinutes(10), b.delayBefore(3));
        assertEquals(Duration.ofMinutes(10), b.delayBefore(9));
    }

    @Test
    void jitterStaysWithinItsFractionAndUnderTheCap() {
        RetryBackOff b = RetryBackOff.exponential(Duration.ofSeconds(1), 2.0, Duration.ofSeconds(5))
                .withJitter(0.2, new Random(7));
        long min = Long.MAX_VALUE;
        long max = 0;
        for (int i = 0; i < 1_000; i++) {
            long d = b.delayBefore(2).toMillis();
            min = Math.min(min, d);
            max = Math.max(max, d);
            assertTrue(b.delayBefore(3).toMillis() <= 5_000, "capped after the jitter");
        }
        assertTrue(min >= 1_600 && max <= 2_400, min + ".." + max);
        assertTrue(max - min > 600, "spread: " + min + ".." + max);
    }

    @Test
    void badValuesAreRefusedWithTheFix() {
        assertThrows(IllegalArgumentException.class, () -> RetryBackOff.fixed(Duration.ofSeconds(-1)));
        assertThrows(
                IllegalArgumentException.class,
                () -> RetryBackOff.exponential(Duration.ofSeconds(1), 0.5, Duration.ofSeconds(2)));
        assertThrows(
                IllegalArgumentException.class,
                () -> RetryBackOff.exponential(Duration.ofSeconds(10), 2, Duration.ofSeconds(2)));
        assertThrows(IllegalArgumentException.class, () -> RetryBackOff.of());
        assertThrows(
                IllegalArgumentException.class,
                () -> RetryBackOff.fixed(Duration.ZERO).withJitter(1.5));
        assertThrows(
                IllegalArgumentException.class,
                () -> RetryBackOff.fixed(Duration.ZERO).delayBefore(0));
    }
}

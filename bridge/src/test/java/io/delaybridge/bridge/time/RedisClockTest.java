package io.delaybridge.bridge.time;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class RedisClockTest {

    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    private final MockTime time = new MockTime();
    private final long t0 = time.nanoseconds();
    /** What Redis' TIME answers; each read is counted. */
    private final AtomicLong redisTime = new AtomicLong(5_000);

    private final AtomicInteger reads = new AtomicInteger();
    private final RedisClock clock = new RedisClock(time, () -> {
        reads.incrementAndGet();
        return redisTime.get();
    });

    /** {@code millis} after a reading, stretched by the clock-rate allowance. */
    private static long ahead(long millis) {
        return millis * MS + millis * MS / RedisClock.RATE_ALLOWANCE;
    }

    @Test
    void knowsNothingBeforeTheFirstReading() {
        assertEquals(Long.MAX_VALUE, clock.atMost(t0));
        assertEquals(Long.MAX_VALUE, clock.reachesAt(1_000));
        assertFalse(clock.fresh(t0));
        assertEquals(time.milliseconds(), clock.now(), "no reading yet: this host's clock is the best guess");
    }

    @Test
    void asAClockItShowsRedisTimeNotThisHosts() {
        clock.observe(1_000_000, t0, t0 + 2 * MS);
        time.sleep(10);
        java.time.Clock view = clock.asClock();
        assertEquals(clock.now(), view.millis());
        assertEquals(view.millis(), view.instant().toEpochMilli());
        assertTrue(Math.abs(view.millis() - time.milliseconds()) > 1_000_000, "the host's clock is far from Redis'");
    }

    @Test
    void asAClockItReadsRedisOnceBeforeAnyReadingAndTheHostsClockOnlyIfThatFails() {
        redisTime.set(time.milliseconds() + 3_600_000);
        java.time.Clock view = clock.asClock();
        assertEquals(time.milliseconds() + 3_600_000, view.millis(), "Redis' clock, read for the first decision");
        assertEquals(1, reads.get());
        view.millis();
        assertEquals(1, reads.get(), "read once: the reading is fresh");

        RedisClock away = new RedisClock(time, () -> {
            throw new IllegalStateException("Redis away");
        });
        assertEquals(time.milliseconds(), away.asClock().millis(), "Redis out of reach: the host's clock");
    }

    // the upper bound: from the newest reading's request

    @Test
    void redisCanBeAtMostAsFarPastTheReadingAsTimePassedSinceTheRequest() {
        clock.observe(1_000_000, t0, t0 + MS);
        // the reading was rounded down (+1) and the elapsed time is rounded up (+1)
        assertEquals(1_000_002, clock.atMost(t0));
        assertEquals(1_000_012, clock.atMost(t0 + 10 * MS));
        assertEquals(1_000_012, clock.atMost(t0 + 10 * MS - 1), "a part of a millisecond counts as a whole one");
        assertEquals(
                1_004_002 + 2,
                clock.atMost(t0 + 4_000 * MS),
                "four seconds later 2 ms more: Redis' clock may run 500 ppm fast");
    }

    @Test
    void aReadingIsFreshForOneSecondAfterItsRequestAndTheNewestCounts() {
        clock.observe(1_000_000, t0, t0);
        assertTrue(clock.fresh(t0 + RedisClock.TRUSTED_NANOS));
        assertFalse(clock.fresh(t0 + RedisClock.TRUSTED_NANOS + 1));
        clock.observe(1_001_500, t0 + 1_500 * MS, t0 + 1_500 * MS);
        assertTrue(clock.fresh(t0 + 1_600 * MS));
        assertEquals(1_001_602, clock.atMost(t0 + 1_600 * MS), "the newest reading counts");
        clock.observe(999_000, t0 + 100 * MS, t0 + 1_700 * MS); // requested before the newest: answered late
        assertEquals(1_001_602, clock.atMost(t0 + 1_600 * MS), "a reading requested earlier does not replace it");
    }

    @Test
    void readingNowAsksRedisOnlyWhenStaleAndAFailedReadIsUnknown() {
        List<RuntimeException> failures = new ArrayList<>();
        RedisClock away = new RedisClock(time, () -> {
            throw new IllegalStateException("Redis away");
        });
        assertEquals(Long.MAX_VALUE, away.atMostNow(failures::add));
        assertEquals(1, failures.size(), "the failure is told");

        assertEquals(5_002, clock.atMostNow(failures::add), "a fresh reading bounds the clock");
        time.step(1_000);
        assertEquals(6_002, clock.atMostNow(failures::add), "a second later, the same reading, a second further");
        assertEquals(1, reads.get(), "a fresh reading is not read again");
        time.stepNanos(1);
        redisTime.set(9_000);
        assertEquals(9_002, clock.atMostNow(failures::add), "a stale reading is read again");
        assertEquals(2, reads.get());
        assertEquals(1, failures.size());
    }

    @Test
    void oneReadingServesEveryUserUntilItIsStale() {
        clock.observe(5_000, t0, t0); // a claim's reading
        clock.refreshIfStale();
        clock.atMostNow(e -> {});
        assertEquals(0, reads.get(), "the intake and the pump use the claim's reading");
        time.step(1_001);
        clock.refreshIfStale();
        clock.atMostNow(e -> {});
        assertEquals(1, reads.get(), "one read of TIME when it went stale, for both");
    }

    // the lower bound: the tightest recent reading, from its answer

    @Test
    void aDueTimeIsReachedAsLongAfterTheAnswerAsItLiesAheadOfTheReading() {
        clock.observe(1_000_000, t0 - 3 * MS, t0);
        assertEquals(t0 + ahead(7), clock.reachesAt(1_000_007));
        assertEquals(t0, clock.reachesAt(1_000_000));
        assertEquals(t0, clock.reachesAt(999_000), "a due time already passed is reached at once");
        assertEquals(
                t0 + 1_000_500_000L,
                clock.reachesAt(1_001_000),
                "a second ahead waits 0.5 ms more: the host's clock may run 500 ppm fast");
    }

    @Test
    void keepsTheTighterOfTwoLowerBounds() {
        clock.observe(1_000_000, t0, t0);
        // 10 ms later a reading that is only 4 ms further: it was taken 6 ms before its answer came, a looser bound
        clock.observe(1_000_004, t0 + 4 * MS, t0 + 10 * MS);
        assertEquals(t0 + ahead(20), clock.reachesAt(1_000_020));
        // 20 ms after the first, a reading 25 ms further: Redis' clock is later than the first reading showed
        clock.observe(1_000_025, t0 + 19 * MS, t0 + 20 * MS);
        assertEquals(t0 + 20 * MS, clock.reachesAt(1_000_025));
        assertEquals(t0 + 20 * MS + ahead(5), clock.reachesAt(1_000_030));
    }

    @Test
    void aLowerBoundOlderThanASecondGivesWayToANewOneEvenIfLooser() {
        clock.observe(1_000_000, t0, t0);
        long later = t0 + RedisClock.TRUSTED_NANOS + MS;
        clock.observe(1_001_000, later - MS, later); // looser by 1 ms than the first reading extended
        assertEquals(later + ahead(10), clock.reachesAt(1_001_010));
    }

    // the estimate: when the pump wakes

    @Test
    void theEstimateLiesMidwayBetweenTheBoundsAndNeverBelowTheLowerOne() {
        clock.observe(1_000_000, t0, t0 + MS); // a claim's reading: a tight lower bound
        clock.observe(1_000_020, t0 + 10 * MS, t0 + 50 * MS); // an express check's: newer, its round trip long
        time.stepNanos(50 * MS);
        // at most 1_000_060 by the newest; at least 1_000_049 by the claim's, 1_000_020 by the newest's: 1_000_049
        assertEquals(1_000_049 + (1_000_060 - 1_000_049) / 2, clock.now());
    }

    @Test
    void theEstimateRunsOnFromTheMiddleOfTheNewestReadingsRoundTrip() {
        clock.observe(1_000_000, t0, t0 + 10 * MS); // taken, as estimated, 5 ms after the request
        time.stepNanos(10 * MS);
        assertEquals(1_000_005, clock.now());
        assertEquals(0, clock.nanosUntil(1_000_005));
        assertEquals(5 * MS, clock.nanosUntil(1_000_010));
        assertEquals(Long.MAX_VALUE, clock.nanosUntil(Long.MAX_VALUE));
        time.shiftWall(-3_600_000); // this host's clock set back an hour: Redis' clock, as estimated, does not move
        assertEquals(1_000_005, clock.now());
    }

    @Test
    void listenersHearOfEachReading() {
        AtomicInteger heard = new AtomicInteger();
        clock.onReading(heard::incrementAndGet);
        clock.observe(1_000_000, t0, t0);
        clock.refreshIfStale();
        time.step(2_000);
        clock.refreshIfStale();
        assertEquals(2, heard.get(), "the reading observed and the one read when stale");
    }
}

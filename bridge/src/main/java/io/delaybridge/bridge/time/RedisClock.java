package io.delaybridge.bridge.time;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Redis' clock as the bridge knows it: one model, fed by every reading of Redis' {@code TIME} (the pump's claims, the
 * intake's express checks, and a read of its own when the newest reading is stale), shared by the intake, the pump
 * and the release threads. Due times are Redis times; this host's wall clock never decides when a record is due.
 *
 * <p>A reading {@code r} (ms, rounded down) requested at monotonic time {@code s} and answered at {@code a} was taken
 * between the two. At a later monotonic time {@code t}, Redis' clock shows:
 *
 * <ul>
 *   <li>at most {@code r + 1 + (t - s)} ({@link #atMost}): the intake lets an offset wait for a later commit, and the
 *       express gate lets a record skip the store, only while Redis is certainly short of its due time. The newest
 *       reading counts.
 *   <li>at least {@code r + (t - a)} ({@link #reachesAt}, {@link #atLeast}): the release threads send a message claimed
 *       ahead of its due time only once this bound has reached it, so look-ahead never makes a delivery early; a
 *       series' turn takes the occurrences this bound has passed. Of the readings of the
 *       last {@link #TRUSTED_NANOS} the tightest counts (the one answered soonest after it was taken).
 *   <li>about midway between the two ({@link #now}): when the pump wakes for its next round.
 * </ul>
 *
 * The time between a reading and {@code t} is stretched by {@link #RATE_ALLOWANCE} (1/2000) in the bounds, because
 * the two clocks may run at slightly different rates (NTP slews a clock by up to 500 ppm). No estimate of the host
 * clock's offset enters: a host clock that is wrong or stepped changes nothing. A reading is fresh for
 * {@link #TRUSTED_NANOS}; then the first caller that needs one reads Redis' clock again ({@link #refreshIfStale}), so
 * one {@code TIME} a second serves every thread.
 *
 * <p>Thread-safe. {@link #onReading} listeners run after each reading, outside this object's lock.
 */
public final class RedisClock {

    /** How long a reading is fresh, and the tightest lower bound preferred over a looser, newer one. */
    public static final long TRUSTED_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** The time since a reading is stretched by 1/this: 500 ppm, the most NTP slews a clock. */
    public static final long RATE_ALLOWANCE = 2_000;

    private final Time time;
    private final LongSupplier readRedis;
    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();

    /** The newest reading (latest request): the upper bound and the estimate. */
    private boolean known;

    private long newestMillis;
    private long newestRequestedNanos;
    private long newestArrivedNanos;
    /** The tightest lower bound among recent readings. */
    private boolean floorKnown;

    private long floorMillis;
    private long floorArrivedNanos;

    /** {@code readRedis}: one read of Redis' {@code TIME}, in ms; it may throw (Redis out of reach). */
    public RedisClock(Time time, LongSupplier readRedis) {
        this.time = time;
        this.readRedis = readRedis;
    }

    /** The local time this model reads: the parts given a {@code RedisClock} read their own time through it too. */
    public Time time() {
        return time;
    }

    /** Runs {@code listener} after each reading (on the thread that made it): a lower bound may have moved. */
    public void onReading(Runnable listener) {
        listeners.add(listener);
    }

    /**
     * Records a reading {@code redisMillis} requested at monotonic {@code requestedNanos} and answered at
     * {@code arrivedNanos}, then tells the listeners.
     */
    public void observe(long redisMillis, long requestedNanos, long arrivedNanos) {
        synchronized (this) {
            boolean newer = !known
                    || requestedNanos - newestRequestedNanos > 0
                    || (requestedNanos == newestRequestedNanos && redisMillis < newestMillis);
            if (newer) {
                known = true;
                newestMillis = redisMillis;
                newestRequestedNanos = requestedNanos;
                newestArrivedNanos = arrivedNanos;
            }
            boolean floorStale = !floorKnown || arrivedNanos - floorArrivedNanos > TRUSTED_NANOS;
            if (floorStale || tighter(redisMillis, arrivedNanos)) {
                floorKnown = true;
                floorMillis = redisMillis;
                floorArrivedNanos = arrivedNanos;
            }
        }
        listeners.forEach(Runnable::run);
    }

    /** Whether the reading bounds Redis' clock from below higher than the one kept (both grow one ms per ms). */
    private boolean tighter(long redisMillis, long arrivedNanos) {
        return TimeUnit.MILLISECONDS.toNanos(redisMillis - floorMillis) > arrivedNanos - floorArrivedNanos;
    }

    /** Whether the newest reading was requested at most {@link #TRUSTED_NANOS} before monotonic {@code nowNanos}. */
    public synchronized boolean fresh(long nowNanos) {
        return known && nowNanos - newestRequestedNanos <= TRUSTED_NANOS;
    }

    /** Reads Redis' clock unless the newest reading is fresh. A failed read throws what the read threw. */
    public void refreshIfStale() {
        long requested = time.nanoseconds();
        if (fresh(requested)) {
            return;
        }
        long reading = readRedis.getAsLong();
        observe(reading, requested, time.nanoseconds());
    }

    /**
     * The latest time Redis' clock can show now, reading it first if the newest reading is stale; MAX_VALUE if that
     * read fails ({@code failed} is told why).
     */
    public long atMostNow(Consumer<RuntimeException> failed) {
        try {
            refreshIfStale();
        } catch (RuntimeException e) {
            failed.accept(e);
            return Long.MAX_VALUE;
        }
        return atMost(time.nanoseconds());
    }

    /** The latest time Redis' clock can show at monotonic {@code nowNanos}; MAX_VALUE before any reading. */
    public synchronized long atMost(long nowNanos) {
        if (!known) {
            return Long.MAX_VALUE;
        }
        long sinceMillis = (Math.max(0, nowNanos - newestRequestedNanos) + 999_999) / 1_000_000;
        return newestMillis + 1 + sinceMillis + sinceMillis / RATE_ALLOWANCE + 1;
    }

    /**
     * The monotonic time from which Redis' clock is certainly at or past {@code dueAt}; MAX_VALUE before any
     * reading.
     */
    public synchronized long reachesAt(long dueAt) {
        if (!floorKnown) {
            return Long.MAX_VALUE;
        }
        long aheadMillis = dueAt - floorMillis;
        if (aheadMillis <= 0) {
            return floorArrivedNanos;
        }
        long aheadNanos = TimeUnit.MILLISECONDS.toNanos(aheadMillis);
        return floorArrivedNanos + aheadNanos + aheadNanos / RATE_ALLOWANCE;
    }

    /**
     * The earliest time Redis' clock can show now: it has certainly passed this ({@link #reachesAt}'s lower bound, read
     * the other way), so what is due by it is due. MIN_VALUE before any reading.
     */
    public synchronized long atLeast() {
        if (!floorKnown) {
            return Long.MIN_VALUE;
        }
        long sinceNanos = Math.max(0, time.nanoseconds() - floorArrivedNanos);
        return floorMillis + TimeUnit.NANOSECONDS.toMillis(sinceNanos - sinceNanos / (RATE_ALLOWANCE + 1));
    }

    /**
     * Redis' time now, as estimated: midway between the lower bound and the newest reading's upper bound (not
     * stretched), so at or after the lower bound, and, for one claim's reading, the middle of its round trip. This
     * host's wall clock before any reading.
     */
    public synchronized long now() {
        if (!known) {
            return time.milliseconds();
        }
        long nowNanos = time.nanoseconds();
        long upper = newestMillis + TimeUnit.NANOSECONDS.toMillis(nowNanos - newestRequestedNanos);
        long lower = floorMillis + TimeUnit.NANOSECONDS.toMillis(nowNanos - floorArrivedNanos);
        return lower + Math.max(0, upper - lower) / 2;
    }

    /**
     * {@link #now()} as a {@link Clock} (UTC), for decisions every instance must take alike: which records wait in the
     * far tier (a record one instance stored hot must not go far when another reads it again later). Before any
     * reading it reads Redis' clock once rather than answer with this host's; only if that read fails (Redis out of
     * reach, so the write this decision is for fails too) does the host's clock answer.
     */
    public Clock asClock() {
        return new Clock() {
            @Override
            public ZoneId getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(ZoneId zone) {
                if (!ZoneOffset.UTC.equals(zone)) {
                    throw new UnsupportedOperationException("Redis' clock is kept in UTC");
                }
                return this;
            }

            @Override
            public long millis() {
                return nowOnceRead();
            }

            @Override
            public Instant instant() {
                return Instant.ofEpochMilli(nowOnceRead());
            }
        };
    }

    /** {@link #now()}, after a read of Redis' clock if it was never read; a failed read leaves the host's clock. */
    private long nowOnceRead() {
        boolean unknown;
        synchronized (this) {
            unknown = !known;
        }
        if (unknown) {
            try {
                refreshIfStale();
            } catch (RuntimeException e) {
                // Redis out of reach: the write the caller decides for fails and is retried, and says why
            }
        }
        return now();
    }

    /** How long until Redis' clock, as estimated, shows {@code redisAt}: 0 if it does, MAX_VALUE for MAX_VALUE. */
    public long nanosUntil(long redisAt) {
        if (redisAt == Long.MAX_VALUE) {
            return Long.MAX_VALUE;
        }
        long now = now();
        return redisAt <= now ? 0 : TimeUnit.MILLISECONDS.toNanos(redisAt - now);
    }
}

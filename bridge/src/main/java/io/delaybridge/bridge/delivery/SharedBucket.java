package io.delaybridge.bridge.delivery;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A cap that every instance of the service shares: this instance takes tokens from a {@link Source} kept outside it
 * (the store's {@code rate.lua}, one state for all instances) in batches, and hands them out locally.
 *
 * <p>The source counts a token when it grants it, so the cap holds whatever the instance count: a token is used
 * within two expiries of its grant (expiry: {@code batch / perSecond}, the time the cap takes to earn a batch; a grant
 * extends the tokens still held by one), so over any window of w seconds all instances send at most the source's
 * burst plus {@code perSecond * (w + 2 * expiry)}. A token not used by then is dropped, not carried over, so a quiet
 * instance cannot save up a burst. With a batch of a twentieth of a second's worth, that is at most 15 % over the cap
 * in a one-second window and 1.5 % over ten seconds; in a steady flow far less, since tokens are used as they come.
 *
 * <p>It asks for the next batch when half of the last is used, one request at a time, so a steady flow rarely waits
 * for a round trip; while one is on its way, {@link #nanosUntil} answers at least a millisecond. A failed request is
 * tried again after {@link #RETRY_NANOS}. Thread-safe: the grant comes back on the source's thread.
 */
public final class SharedBucket implements Bucket {

    /** What a request took: {@code granted} tokens, and nanoseconds until the source has another. */
    public record Tokens(int granted, long waitNanos) {}

    /** Where the tokens come from: one state for every instance. */
    @FunctionalInterface
    public interface Source {
        CompletableFuture<Tokens> take(int want);
    }

    static final long RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    static final long ASKING_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private static final Logger LOG = LoggerFactory.getLogger(SharedBucket.class);
    private static final double NANOS_PER_SECOND = 1e9;

    private final String target;
    private final double perSecond;
    private final int batch;
    private final long expiryNanos;
    private final Source source;

    private int tokens;
    private long expiresAt;
    private boolean asking;
    private long nextAskAt;
    private boolean askedYet;
    private boolean failing;

    public SharedBucket(String target, double perSecond, Source source) {
        if (!(perSecond > 0) || Double.isInfinite(perSecond)) {
            throw new IllegalArgumentException("rate is " + perSecond + " per second: must be above 0");
        }
        this.target = target;
        this.perSecond = perSecond;
        this.batch = batchFor(perSecond);
        this.expiryNanos = (long) Math.ceil(batch * NANOS_PER_SECOND / perSecond);
        this.source = source;
    }

    /** The batch (and the source's burst) for a cap: a twentieth of a second's worth, at least 1. */
    public static int batchFor(double perSecond) {
        return (int) Math.max(1, Math.ceil(perSecond / 20));
    }

    @Override
    public double perSecond() {
        return perSecond;
    }

    @Override
    public synchronized boolean tryTake(long nowNanos) {
        expire(nowNanos);
        boolean took = tokens > 0;
        if (took) {
            tokens--;
        }
        if (tokens * 2 < batch) {
            ask(nowNanos);
        }
        return took;
    }

    @Override
    public synchronized long nanosUntil(long nowNanos, int count) {
        expire(nowNanos);
        if (tokens >= count) {
            return 0;
        }
        long earned = (long) Math.ceil((count - tokens) * NANOS_PER_SECOND / perSecond);
        long source = asking ? ASKING_NANOS : Math.max(0, nextAskAt - nowNanos);
        return Math.max(earned, source);
    }

    /** Tokens held now (for tests and the status view). */
    public synchronized int tokens(long nowNanos) {
        expire(nowNanos);
        return tokens;
    }

    private void expire(long nowNanos) {
        if (tokens > 0 && nowNanos - expiresAt >= 0) {
            tokens = 0;
        }
    }

    private void ask(long nowNanos) {
        if (asking || (askedYet && nowNanos - nextAskAt < 0)) {
            return;
        }
        asking = true;
        askedYet = true;
        CompletableFuture<Tokens> request;
        try {
            request = source.take(batch);
        } catch (RuntimeException e) {
            answered(nowNanos, null, e);
            return;
        }
        request.whenComplete((granted, error) -> answered(nowNanos, granted, error));
    }

    private synchronized void answered(long askedAt, Tokens granted, Throwable error) {
        asking = false;
        if (error != null) {
            nextAskAt = askedAt + RETRY_NANOS;
            if (!failing) {
                LOG.warn("Could not take tokens of the shared cap of {}: {}; trying again", target, error.toString());
            }
            failing = true;
            return;
        }
        if (failing) {
            LOG.info("Taking tokens of the shared cap of {} again", target);
            failing = false;
        }
        if (granted.granted() > 0) {
            tokens += granted.granted();
            expiresAt = askedAt + expiryNanos;
            nextAskAt = askedAt;
        } else {
            nextAskAt = askedAt + Math.max(granted.waitNanos(), ASKING_NANOS);
        }
    }
}

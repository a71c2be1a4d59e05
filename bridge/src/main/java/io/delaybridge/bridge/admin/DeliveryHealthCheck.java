package io.delaybridge.bridge.admin;

import com.codahale.metrics.Counting;
import com.codahale.metrics.health.HealthCheck;
import io.delaybridge.bridge.time.Time;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.TimeUnit;

/**
 * Unhealthy while every send fails: over the last {@code window}, at least {@code minFailures} sends were retried
 * and none was delivered. {@code pump-lag} cannot see this: a retried message gets a new due time, so nothing is ever
 * overdue while the producer fails every send (a codec that cannot load its native library, a broker that refuses the
 * bridge's writes).
 *
 * <p>It compares the meters with what they were at the checks of the last window (Docker and load balancers check
 * every few seconds); the first check after a quiet spell compares with itself and is healthy.
 */
public final class DeliveryHealthCheck extends HealthCheck {

    private record Sample(long at, long delivered, long retried) {}

    private final Counting delivered;
    private final Counting retried;
    private final Time time;
    private final long windowNanos;
    private final long minFailures;
    private final Deque<Sample> samples = new ArrayDeque<>();

    public DeliveryHealthCheck(Counting delivered, Counting retried, Time time, long windowMillis, long minFailures) {
        this.delivered = delivered;
        this.retried = retried;
        this.time = time;
        this.windowNanos = TimeUnit.MILLISECONDS.toNanos(windowMillis);
        this.minFailures = minFailures;
    }

    @Override
    protected synchronized Result check() {
        Sample now = new Sample(time.nanoseconds(), delivered.getCount(), retried.getCount());
        // keep the newest sample at least a window old as the baseline, and every one after it
        while (samples.size() > 1 && now.at - second().at >= windowNanos) {
            samples.removeFirst();
        }
        Sample since = samples.isEmpty() ? now : samples.peekFirst();
        samples.addLast(now);
        long sent = now.delivered - since.delivered;
        long failed = now.retried - since.retried;
        long seconds = TimeUnit.NANOSECONDS.toSeconds(now.at - since.at);
        if (sent == 0 && failed >= minFailures) {
            return Result.unhealthy(
                    "every send failed in the last %d s: %d retried, 0 delivered; the log names the send error",
                    seconds, failed);
        }
        return Result.healthy("last %d s: %d delivered, %d retried", seconds, sent, failed);
    }

    private Sample second() {
        var it = samples.iterator();
        it.next();
        return it.next();
    }
}

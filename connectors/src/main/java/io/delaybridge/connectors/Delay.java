package io.delaybridge.connectors;

import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.schemas.DelayText;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;

/**
 * When a delayed record is due: a delay after the record's timestamp, or an absolute instant.
 *
 * <pre>{@code
 * Delay.of(Duration.ofMinutes(30))                          // delay-ms: 1800000
 * Delay.ofMillis(250)                                       // delay-ms: 250
 * Delay.until(Instant.parse("2026-11-22T08:00:00Z"))        // delay-until: 1795334400000
 * }</pre>
 *
 * <p>A relative delay becomes the {@value DelayHeaders#DELAY_MS} header in whole milliseconds and counts from the
 * timestamp of the intake record, not from the moment the bridge reads it. An instant becomes
 * {@value DelayHeaders#UNTIL} in epoch milliseconds. Both are the plain-number forms every client can write, so a
 * record built here looks exactly like one produced with kcat. A due time in the past means "deliver now";
 * {@code Delay.ofMillis(0)} says so explicitly.
 *
 * <p>Values are checked when created: a negative delay, or an instant before 1970 (not expressible as epoch
 * milliseconds in the header), throws {@link IllegalArgumentException}. Sub-millisecond parts of a
 * {@link Duration} or an {@link Instant} are dropped.
 *
 * <p>Immutable and thread-safe; equal when they render to the same header.
 */
public final class Delay {

    private final String headerName;
    private final long millis;

    private Delay(String headerName, long millis) {
        this.headerName = headerName;
        this.millis = millis;
    }

    /**
     * A delay after the intake record's timestamp.
     *
     * @param delay zero or more; zero delivers at once
     * @return a delay rendered as {@value DelayHeaders#DELAY_MS}
     * @throws IllegalArgumentException if {@code delay} is null, negative or longer than {@link Long#MAX_VALUE}
     *                                  milliseconds
     */
    public static Delay of(Duration delay) {
        if (delay == null) {
            throw new IllegalArgumentException("delay is null; use Delay.ofMillis(0) to deliver at once");
        }
        long millis;
        try {
            millis = delay.toMillis();
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("delay " + delay + " is too long: more than " + Long.MAX_VALUE + "ms");
        }
        return ofMillis(millis, delay.toString());
    }

    /**
     * A delay after the intake record's timestamp, in milliseconds.
     *
     * @param millis zero or more; zero delivers at once
     * @return a delay rendered as {@value DelayHeaders#DELAY_MS}
     * @throws IllegalArgumentException if {@code millis} is negative
     */
    public static Delay ofMillis(long millis) {
        return ofMillis(millis, millis + "ms");
    }

    /**
     * An absolute due time.
     *
     * @param dueAt when the record is due; a time in the past means at once
     * @return a delay rendered as {@value DelayHeaders#UNTIL} in epoch milliseconds
     * @throws IllegalArgumentException if {@code dueAt} is null or before 1970-01-01T00:00:00Z
     */
    public static Delay until(Instant dueAt) {
        if (dueAt == null) {
            throw new IllegalArgumentException("due time is null");
        }
        if (dueAt.isBefore(Instant.EPOCH)) {
            throw new IllegalArgumentException(
                    "due time " + dueAt + " is before 1970-01-01T00:00:00Z, which " + DelayHeaders.UNTIL
                            + " (epoch milliseconds) cannot express; use Delay.ofMillis(0) to deliver at once");
        }
        long epochMillis;
        try {
            epochMillis = dueAt.toEpochMilli();
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("due time " + dueAt + " is beyond the range of epoch milliseconds");
        }
        return new Delay(DelayHeaders.UNTIL, epochMillis);
    }

    private static Delay ofMillis(long millis, String shown) {
        if (millis < 0) {
            throw new IllegalArgumentException(
                    "delay " + shown + " is negative; use Delay.ofMillis(0) to deliver at once"
                            + " or Delay.until(instant) for an absolute due time");
        }
        return new Delay(DelayHeaders.DELAY_MS, millis);
    }

    /** @return {@value DelayHeaders#DELAY_MS} for a relative delay, {@value DelayHeaders#UNTIL} for an instant */
    public String headerName() {
        return headerName;
    }

    /** @return the header value: milliseconds, or epoch milliseconds for an instant, in decimal */
    public String headerValue() {
        return Long.toString(millis);
    }

    /** @return the header this delay adds to an intake record */
    public Header toHeader() {
        return new RecordHeader(headerName, headerValue().getBytes(StandardCharsets.UTF_8));
    }

    /** @return true for {@link #until(Instant)}, false for a delay relative to the record's timestamp */
    public boolean isAbsolute() {
        return headerName.equals(DelayHeaders.UNTIL);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Delay other && other.headerName.equals(headerName) && other.millis == millis;
    }

    @Override
    public int hashCode() {
        return Objects.hash(headerName, millis);
    }

    /** @return e.g. {@code Delay[30m]} or {@code Delay[until 2026-11-22T08:00:00Z]} */
    @Override
    public String toString() {
        return isAbsolute()
                ? "Delay[until " + Instant.ofEpochMilli(millis) + "]"
                : "Delay[" + DelayText.formatMillis(millis) + "]";
    }
}

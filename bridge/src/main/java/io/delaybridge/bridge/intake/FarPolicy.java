package io.delaybridge.bridge.intake;

import io.delaybridge.bridge.store.FarEntry;
import io.delaybridge.bridge.time.Time;
import io.delaybridge.schemas.DelayText;
import java.time.Clock;

/**
 * Which schedules wait in the far tier (their payload left in the intake topic's log, an index entry in the store;
 * docs/redis-store.md, "The far tier") and which are stored hot as before. A schedule goes far only if all of these
 * hold when it is read:
 * <ul>
 *   <li>the hot window is on ({@code intake.hotWindow} not {@code off}) and the record is due more than the window
 *       after now (Redis' clock as this instance estimates it, {@code RedisClock}: the host's clock would let two
 *       instances with different clocks disagree, one storing a record hot and another, reading it again after a
 *       crash, far; the far copy would be thawed and delivered again);
 *   <li>the intake topic's retention, as last read ({@link RetentionWatch}), keeps the record until its due time plus
 *       the margin ({@link FarRetention#mayWaitFar}); before the first reading nothing goes far;
 *   <li>its intake position fits an index entry (partition 2 bytes, offset 6 bytes: always, in practice).
 * </ul>
 * Cancels and records on the express path never go far: the intake does not ask. Holds no connection; {@link #far} is
 * called on the intake thread, {@link #retention(FarRetention)} by the retention watch.
 */
public final class FarPolicy {

    /** {@code windowMillis} set to this keeps every record hot. */
    public static final long OFF = -1;

    /** Keeps every record hot. */
    static final FarPolicy NONE = new FarPolicy(OFF, Time.SYSTEM.clock());

    private final long windowMillis;
    private final Clock clock;
    /** Null until the intake's retention is first read: nothing goes far. */
    private volatile FarRetention retention;

    public FarPolicy(long windowMillis, Clock clock) {
        this.windowMillis = windowMillis;
        this.clock = clock;
    }

    /** Whether the hot window is on (the retention may still keep every record hot). */
    public boolean windowOn() {
        return windowMillis != OFF;
    }

    /** The intake's retention as last read: decides from now on. */
    void retention(FarRetention retention) {
        this.retention = retention;
    }

    /** The intake's retention as last read, or null if not read yet. */
    FarRetention retention() {
        return retention;
    }

    /** Whether records may go far now: the window is on and the intake's retention allows it. */
    public boolean enabled() {
        FarRetention current = retention;
        return windowOn() && current != null && current.on();
    }

    /**
     * Whether the schedule of intake record ({@code partition}, {@code offset}), written at {@code timestamp} (epoch
     * ms; negative: unknown) and due at {@code dueAt}, waits in the far tier.
     */
    boolean far(int partition, long offset, long timestamp, long dueAt) {
        if (!windowOn()) {
            return false;
        }
        FarRetention current = retention;
        return current != null
                && dueAt - clock.millis() > windowMillis
                && current.mayWaitFar(timestamp, dueAt)
                && partition >= 0
                && partition <= 0xFFFF
                && offset >= 0
                && offset <= FarEntry.MAX_OFFSET;
    }

    /**
     * Whether the far tier is on but takes no record: the intake's retention less the margin is not longer than the
     * window, and a record's delay counts from its timestamp, before now.
     */
    boolean takesNone() {
        FarRetention current = retention;
        return enabled()
                && current.retentionMillis() != FarRetention.INFINITE
                && current.retentionMillis() - current.marginMillis() <= windowMillis;
    }

    /** The far tier's state in one line, for the status page: on, or off and why. */
    public String state() {
        if (!windowOn()) {
            return "off: intake.hotWindow is off, every record is stored in Redis";
        }
        FarRetention current = retention;
        if (current == null) {
            return "off until the intake topic's retention is read: every record is stored in Redis";
        }
        if (!current.on()) {
            return "off: " + current.reason();
        }
        String within = current.retentionMillis() == FarRetention.INFINITE
                ? ", which keeps every record (retention.ms=-1)"
                : " if due within " + DelayText.formatMillis(current.retentionMillis()) + " (retention.ms) less "
                        + DelayText.formatMillis(current.marginMillis()) + " (intake.farRetentionMargin) of their"
                        + " timestamp";
        String none = takesNone()
                ? "; no record qualifies: raise retention.ms of " + current.topic() + " or lower intake.hotWindow"
                : "";
        return "on: records due more than " + DelayText.formatMillis(windowMillis) + " ahead (intake.hotWindow) wait"
                + " in the log of " + current.topic() + within + none;
    }
}

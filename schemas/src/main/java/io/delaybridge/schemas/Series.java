package io.delaybridge.schemas;

import java.time.ZoneId;
import java.util.Objects;

/**
 * A recurring schedule read from a record's headers by {@link SeriesHeaders}: what recurs, from when, until when,
 * and what to do about missed occurrences. {@link SeriesTimeline} turns it into instants and {@link SeriesPlanner}
 * into what is due now.
 *
 * @param id          the series id ({@value DelayHeaders#ID}), required for a series
 * @param recurrence  a cron expression in a zone, or a fixed interval
 * @param startMillis no occurrence before this instant; for an interval, the first occurrence (and the phase
 *                    of all others)
 * @param endMillis   no occurrence after this instant (inclusive); {@link Long#MAX_VALUE} when open-ended
 * @param count       at most this many occurrences, counted as scheduled (see {@link SeriesPlanner});
 *                    {@link Long#MAX_VALUE} when unlimited
 * @param missed      what to deliver for occurrences that passed while nothing could deliver them
 */
public record Series(String id, Recurrence recurrence, long startMillis, long endMillis, long count, Missed missed) {

    /** Unlimited {@link #count()}, and open-ended {@link #endMillis()}. */
    public static final long UNBOUNDED = Long.MAX_VALUE;

    /** Validates what the type cannot say; {@link SeriesHeaders} reports bad input before it gets here. */
    public Series {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(recurrence, "recurrence");
        Objects.requireNonNull(missed, "missed");
        if (count < 1) {
            throw new IllegalArgumentException("count must be >= 1, was " + count);
        }
        if (endMillis < startMillis) {
            throw new IllegalArgumentException("endMillis " + endMillis + " is before startMillis " + startMillis);
        }
    }

    /** What recurs: wall-clock times in a zone, or elapsed time. */
    public sealed interface Recurrence permits Cron, Every {}

    /**
     * Wall-clock times: the cron expression is matched in {@code zone}, and the two daylight-saving choices say
     * what a wall time that does not exist, or exists twice, means.
     *
     * @param schedule the expression
     * @param zone     an IANA zone such as {@code Europe/Berlin}
     * @param gap      a matching wall time inside a spring-forward gap
     * @param overlap  a matching wall time inside a fall-back overlap
     */
    public record Cron(CronSchedule schedule, ZoneId zone, DstGap gap, DstOverlap overlap) implements Recurrence {
        /** Checks for nulls. */
        public Cron {
            Objects.requireNonNull(schedule, "schedule");
            Objects.requireNonNull(zone, "zone");
            Objects.requireNonNull(gap, "gap");
            Objects.requireNonNull(overlap, "overlap");
        }
    }

    /**
     * Elapsed time: an occurrence every {@code intervalMillis} from the series start, whatever the wall clocks do.
     * {@code 24h} is 24 hours, so across a daylight-saving change it lands an hour off the previous wall time;
     * use a cron expression to follow the wall clock.
     *
     * @param intervalMillis the interval, at least {@link SeriesHeaders#MIN_INTERVAL_MILLIS}
     */
    public record Every(long intervalMillis) implements Recurrence {
        /** Checks the interval is positive. */
        public Every {
            if (intervalMillis <= 0) {
                throw new IllegalArgumentException("intervalMillis must be > 0, was " + intervalMillis);
            }
        }
    }

    /** {@value SeriesHeaders#DST_GAP}: a matching wall time that a spring-forward change skips. */
    public enum DstGap {
        /** No occurrence that day (Temporal's and EventBridge's behaviour). */
        SKIP,
        /**
         * The occurrence happens at the end of the gap, the instant the clocks jump (03:00 for 02:30 in Berlin);
         * several matches inside one gap make one occurrence, as cron daemons run skipped jobs once after the jump.
         * The default.
         */
        SHIFT;

        /** @return the header value, e.g. {@code shift} */
        public String headerValue() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** {@value SeriesHeaders#DST_OVERLAP}: a matching wall time that a fall-back change repeats. */
    public enum DstOverlap {
        /** Only the first of the two instants (the earlier, still on summer time). The default. */
        ONCE,
        /** Both instants, an hour apart (Temporal's literal matching). */
        TWICE;

        /** @return the header value, e.g. {@code once} */
        public String headerValue() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** {@value SeriesHeaders#MISSED}: occurrences that passed while the bridge or Redis was down. */
    public enum Missed {
        /** Deliver the latest missed occurrence now, then follow the schedule. The default. */
        ONE,
        /** Deliver every missed occurrence, oldest first, up to {@link SeriesPlanner#MAX_CATCH_UP}. */
        ALL,
        /** Deliver none of them; wait for the next occurrence. */
        SKIP;

        /** @return the header value, e.g. {@code one} */
        public String headerValue() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }
}

package io.delaybridge.schemas;

import java.util.ArrayDeque;
import java.util.List;
import java.util.Objects;

/**
 * What of a series is due now, and when it is next due: the step the bridge takes each time an occurrence of a
 * series comes due, and once when the series is first read.
 *
 * <pre>{@code
 * SeriesPlanner planner = new SeriesPlanner(SeriesPlanner.DEFAULT_SKIP_GRACE_MILLIS);
 * SeriesPlanner.Plan plan = planner.advance(series, storedNext, clock.millis());   // start(...) the first time
 * plan.due().forEach(o -> deliver(o.number(), o.dueAtMillis()));   // usually one, or none
 * if (plan.next() != null) store(plan.next());                     // null: the series is over
 * }</pre>
 *
 * <h2>Occurrence numbers, end and count</h2>
 * Occurrences are numbered by their place in the schedule, 1 for the first instant at or after the start, whether
 * they were delivered or not: after an outage the numbers jump, which tells a consumer how many were not
 * delivered. {@link Series#count()} bounds these numbers and {@link Series#endMillis()} (inclusive) bounds the
 * instants, so an outage never makes a series run longer than it was written.
 *
 * <h2>Missed runs</h2>
 * Of the occurrences due at {@code now} (instants at or before it, from the pending one on), the latest is the
 * current one and any earlier ones were missed (the bridge or Redis was down, or the record was read late):
 * <ul>
 *   <li>{@link Series.Missed#ONE}: the current one is delivered, however late; the missed ones are not.</li>
 *   <li>{@link Series.Missed#ALL}: all of them, oldest first, but at most {@value #MAX_CATCH_UP}: after a longer
 *       outage the older ones are counted as skipped, so that an every-second series down for a day sends a
 *       thousand records, not 86,400.</li>
 *   <li>{@link Series.Missed#SKIP}: none of the missed ones, and the current one only if it is at most the skip
 *       grace late (default {@value #DEFAULT_SKIP_GRACE_MILLIS} ms, like Quartz's misfire threshold): a pump that
 *       runs a few milliseconds late still delivers, a bridge back after an hour waits for the next occurrence.</li>
 * </ul>
 *
 * <p>Cost: up to a few hundred passed occurrences are stepped over one by one; beyond that a cron series counts its
 * occurrences day by day and an interval series by arithmetic, so a long outage costs little more than a short one.
 * Immutable and thread-safe; time only comes in as {@code now}.
 */
public final class SeriesPlanner {

    /** Most occurrences {@link Series.Missed#ALL} delivers in one plan; older missed ones are skipped. */
    public static final int MAX_CATCH_UP = 1000;

    /** How late the current occurrence may be and still be delivered under {@link Series.Missed#SKIP}. */
    public static final long DEFAULT_SKIP_GRACE_MILLIS = 60_000;

    /** Occurrences of a cron series stepped through one by one before the planner counts instead. */
    static final int STEPS_BEFORE_COUNTING = 256;

    private final long skipGraceMillis;
    private final int stepsBeforeCounting;

    /**
     * @param skipGraceMillis how late an occurrence may be and still count as on time under
     *                        {@link Series.Missed#SKIP}
     */
    public SeriesPlanner(long skipGraceMillis) {
        this(skipGraceMillis, STEPS_BEFORE_COUNTING);
    }

    /** Tests compare the counting catch-up against plain stepping ({@link Integer#MAX_VALUE}). */
    SeriesPlanner(long skipGraceMillis, int stepsBeforeCounting) {
        if (skipGraceMillis < 0) {
            throw new IllegalArgumentException("skipGraceMillis must be >= 0, was " + skipGraceMillis);
        }
        this.skipGraceMillis = skipGraceMillis;
        this.stepsBeforeCounting = stepsBeforeCounting;
    }

    /**
     * One occurrence of a series.
     *
     * @param number      its place in the schedule, from 1
     * @param dueAtMillis its instant
     */
    public record Occurrence(long number, long dueAtMillis) {}

    /**
     * @param due     the occurrences to deliver now, oldest first; often one, empty when nothing is due
     * @param next    the first occurrence after {@code now}, or {@code null} when the series is over
     * @param skipped occurrences that passed and are not delivered (missed-run policy)
     */
    public record Plan(List<Occurrence> due, Occurrence next, long skipped) {}

    /**
     * The first step of a new series: which of its first occurrences are due at {@code now} (a record read late, or
     * with a start in the past), and the first one after.
     *
     * @param series    the series
     * @param nowMillis the present
     * @return what is due now and what comes next
     */
    public Plan start(Series series, long nowMillis) {
        Objects.requireNonNull(series, "series");
        return walk(series, first(series), nowMillis);
    }

    /**
     * The step taken when the stored occurrence of a series comes due (or once the bridge is back after an outage).
     *
     * @param series    the series
     * @param pending   the occurrence stored as next, not yet handled
     * @param nowMillis the present
     * @return what is due now and what comes next
     */
    public Plan advance(Series series, Occurrence pending, long nowMillis) {
        Objects.requireNonNull(series, "series");
        Objects.requireNonNull(pending, "pending");
        return walk(series, pending, nowMillis);
    }

    private Plan walk(Series series, Occurrence from, long nowMillis) {
        Occurrence candidate = from;
        int keep = series.missed() == Series.Missed.ALL ? MAX_CATCH_UP : 1;
        long passed = 0;
        if (candidate != null && series.recurrence() instanceof Series.Every every) {
            Occurrence jumped = jump(series, every.intervalMillis(), candidate, nowMillis, keep);
            passed = jumped.number() - candidate.number();
            candidate = jumped;
        }
        ArrayDeque<Occurrence> kept = new ArrayDeque<>();
        long steps = 0;
        while (candidate != null && candidate.dueAtMillis() <= nowMillis) {
            if (++steps == (long) keep + stepsBeforeCounting && series.recurrence() instanceof Series.Cron cron) {
                Occurrence counted = count(series, cron, candidate, nowMillis, keep);
                if (counted != candidate) {
                    passed += counted.number() - candidate.number();
                    candidate = counted;
                    kept.clear();
                }
            }
            passed++;
            if (kept.size() == keep) {
                kept.removeFirst();
            }
            kept.addLast(candidate);
            candidate = following(series, candidate);
        }
        return settle(series, kept, candidate, passed, nowMillis);
    }

    /** Applies {@link Series.Missed#SKIP}'s grace to the occurrences kept. */
    private Plan settle(Series series, ArrayDeque<Occurrence> kept, Occurrence next, long passed, long nowMillis) {
        if (kept.isEmpty()
                || (series.missed() == Series.Missed.SKIP
                        && nowMillis - kept.getLast().dueAtMillis() > skipGraceMillis)) {
            return new Plan(List.of(), next, passed);
        }
        return new Plan(List.copyOf(kept), next, passed - kept.size());
    }

    /**
     * @param series a series
     * @return its first occurrence, or {@code null} if it has none within its end
     */
    public static Occurrence first(Series series) {
        return within(series, 1, SeriesTimeline.first(series));
    }

    /**
     * @param series a series
     * @param last   one of its occurrences
     * @return the occurrence after it, or {@code null} if the series ends with {@code last}
     */
    public static Occurrence following(Series series, Occurrence last) {
        if (last.number() >= series.count()) {
            return null;
        }
        return within(series, last.number() + 1, SeriesTimeline.after(series, last.dueAtMillis()));
    }

    private static Occurrence within(Series series, long number, long dueAt) {
        if (dueAt == SeriesTimeline.NONE || dueAt > series.endMillis() || number > series.count()) {
            return null;
        }
        return new Occurrence(number, dueAt);
    }

    /**
     * A cron series far behind {@code now} skips to the first of the {@code keep} latest occurrences due by counting
     * ({@link SeriesTimeline#count}) and a binary search for that occurrence's instant: O(days of the outage) per
     * probe instead of one step per missed occurrence.
     */
    private static Occurrence count(Series series, Series.Cron cron, Occurrence from, long now, int keep) {
        long horizon = Math.min(now, series.endMillis());
        long due = from.dueAtMillis();
        long last = Math.min(from.number() + SeriesTimeline.count(cron, due, horizon + 1) - 1, series.count());
        long skip = last - keep + 1 - from.number();
        if (skip <= 0) {
            return from;
        }
        // the first instant x with `skip` occurrences in [due, x) and one at x: the occurrence numbered from + skip
        long lo = due;
        long hi = horizon;
        while (lo < hi) {
            long mid = lo + (hi - lo) / 2;
            if (SeriesTimeline.count(cron, due, mid + 1) > skip) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        return new Occurrence(from.number() + skip, lo);
    }

    /**
     * An interval series skips by arithmetic to the {@code keep} latest occurrences due at {@code now}, so a long
     * outage of an every-second series costs nothing to step over.
     */
    private static Occurrence jump(Series series, long interval, Occurrence from, long now, int keep) {
        if (now < from.dueAtMillis()) {
            return from;
        }
        long latest = from.number() + (now - from.dueAtMillis()) / interval;
        if (series.endMillis() < now) {
            latest = Math.min(latest, from.number() + (series.endMillis() - from.dueAtMillis()) / interval);
        }
        latest = Math.min(latest, series.count());
        long target = latest - keep + 1;
        if (target <= from.number()) {
            return from;
        }
        return new Occurrence(target, from.dueAtMillis() + (target - from.number()) * interval);
    }
}

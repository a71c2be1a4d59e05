package io.delaybridge.schemas;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;

/**
 * The instants of a series, in epoch milliseconds and strictly increasing, with the series' daylight-saving choices
 * applied. Bounds ({@link Series#endMillis()}, {@link Series#count()}) and missed runs are {@link SeriesPlanner}'s.
 *
 * <h2>How a cron expression becomes instants</h2>
 * The time line is cut where the zone's offset changes. Within one piece the offset is fixed, so matching wall times
 * map to instants in the same order, and the next instant after {@code t} is the next match after {@code t}'s wall
 * time at that offset, if it still falls inside the piece. At the end of a piece:
 * <ul>
 *   <li>a spring-forward gap (02:00 to 03:00 in Berlin): wall times inside it belong to no instant. With
 *       {@link Series.DstGap#SHIFT}, if any of them matches, one occurrence falls on the instant of the jump itself
 *       (03:00 local); with {@link Series.DstGap#SKIP}, none.</li>
 *   <li>a fall-back overlap (02:00 to 03:00 summer time, then 02:00 to 03:00 again): the next piece starts an hour
 *       earlier in wall time, so matches in the repeated hour come again. {@link Series.DstOverlap#TWICE} keeps them;
 *       {@link Series.DstOverlap#ONCE} drops the second ones.</li>
 * </ul>
 * The library's own DST rules never decide: only {@link ZoneRules} (offsets and transitions) is used.
 *
 * <p>An interval ({@link Series.Every}) is elapsed time: {@code start + k * interval}, no zone involved.
 */
public final class SeriesTimeline {

    /** Returned when there is no further instant. */
    public static final long NONE = Long.MIN_VALUE;

    /** Offset changes examined in one call before giving up (a zone has a few a year; cron searches 9 years). */
    private static final int MAX_PIECES = 64;

    /** Offset changes {@link #gapSkips} looks at, at most: two a year for five centuries. */
    private static final int MAX_GAPS_COUNTED = 1000;

    private SeriesTimeline() {}

    /**
     * @param series a series
     * @return its first instant, at or after {@link Series#startMillis()}, or {@link #NONE}
     */
    public static long first(Series series) {
        return atOrAfter(series, series.startMillis());
    }

    /**
     * @param series a series
     * @param millis any instant
     * @return the first instant of the series strictly after {@code millis}, or {@link #NONE}
     */
    public static long after(Series series, long millis) {
        return millis == Long.MAX_VALUE ? NONE : atOrAfter(series, Math.max(millis + 1, series.startMillis()));
    }

    private static long atOrAfter(Series series, long millis) {
        if (series.recurrence() instanceof Series.Every every) {
            return everyAtOrAfter(series.startMillis(), every.intervalMillis(), millis);
        }
        return cronAtOrAfter((Series.Cron) series.recurrence(), millis);
    }

    private static long everyAtOrAfter(long start, long interval, long millis) {
        if (millis <= start) {
            return start;
        }
        long steps = Math.floorDiv(millis - start - 1, interval) + 1;
        try {
            return Math.addExact(start, Math.multiplyExact(steps, interval));
        } catch (ArithmeticException e) {
            return NONE;
        }
    }

    static long cronAtOrAfter(Series.Cron cron, long millis) {
        ZoneRules rules = cron.zone().getRules();
        long t = millis;
        for (int piece = 0; piece < MAX_PIECES; piece++) {
            Instant at = Instant.ofEpochMilli(t);
            ZoneOffset offset = rules.getOffset(at);
            ZoneOffsetTransition next = rules.nextTransition(at);
            long pieceEnd = next == null ? Long.MAX_VALUE : next.toEpochSecond() * 1000;
            long found = inPiece(cron, rules, offset, t, pieceEnd);
            if (found != NONE) {
                return found;
            }
            if (next == null || pieceEnd == Long.MAX_VALUE) {
                return NONE;
            }
            if (next.isGap() && cron.gap() == Series.DstGap.SHIFT && matchesIn(cron.schedule(), next)) {
                return pieceEnd;
            }
            t = pieceEnd;
        }
        return NONE;
    }

    /**
     * Counts the instants of a cron series in {@code [fromMillis, toMillis)} piece by piece, the same instants
     * {@link #after} steps through, without stepping: the planner's catch-up after a long outage.
     *
     * @param cron       the recurrence
     * @param fromMillis first instant counted
     * @param toMillis   first instant not counted
     * @return how many instants of the series lie in the range
     */
    static long count(Series.Cron cron, long fromMillis, long toMillis) {
        ZoneRules rules = cron.zone().getRules();
        CronSchedule schedule = cron.schedule();
        long total = 0;
        long t = fromMillis;
        while (t < toMillis) {
            Instant at = Instant.ofEpochMilli(t);
            ZoneOffset offset = rules.getOffset(at);
            ZoneOffsetTransition next = rules.nextTransition(at);
            long pieceEnd = next == null ? Long.MAX_VALUE : next.toEpochSecond() * 1000;
            LocalDateTime from = wallAtOrAfter(t, offset);
            LocalDateTime to = wallAtOrAfter(Math.min(toMillis, pieceEnd), offset);
            total += schedule.countBetween(from, to);
            total -= secondOfTwo(cron, rules.previousTransition(Instant.ofEpochMilli(t + 1)), offset, from, to);
            if (next == null || pieceEnd >= toMillis) {
                return total;
            }
            total += shiftedInto(cron, next);
            t = pieceEnd;
        }
        return total;
    }

    /**
     * The wall times a {@link Series.DstGap#SKIP} series loses to spring-forward gaps whose jump lies in
     * {@code (fromMillis, toMillis]}: every match of its cron expression inside each such gap. These have no instant
     * and so no occurrence number; the bridge counts them as skipped. 0 for an interval, and under
     * {@link Series.DstGap#SHIFT} (a gap's matches make an occurrence of their own at the jump).
     *
     * @param series     a series
     * @param fromMillis the end of the range before it (an occurrence already planned)
     * @param toMillis   the range's last instant (the occurrence planned next)
     * @return how many matching wall times the gaps in the range skip
     */
    public static long gapSkips(Series series, long fromMillis, long toMillis) {
        if (!(series.recurrence() instanceof Series.Cron cron) || cron.gap() != Series.DstGap.SKIP) {
            return 0;
        }
        ZoneRules rules = cron.zone().getRules();
        long total = 0;
        Instant at = Instant.ofEpochMilli(fromMillis);
        for (int seen = 0; seen < MAX_GAPS_COUNTED; seen++) {
            ZoneOffsetTransition next = rules.nextTransition(at);
            if (next == null || next.toEpochSecond() * 1000 > toMillis) {
                return total;
            }
            if (next.isGap()) {
                total += cron.schedule().countBetween(next.getDateTimeBefore(), next.getDateTimeAfter());
            }
            at = next.getInstant();
        }
        return total;
    }

    /** Matches in [from, to) at {@code offset} that {@link Series.DstOverlap#ONCE} drops as repeats. */
    private static long secondOfTwo(
            Series.Cron cron, ZoneOffsetTransition began, ZoneOffset offset, LocalDateTime from, LocalDateTime to) {
        if (cron.overlap() != Series.DstOverlap.ONCE
                || began == null
                || !began.isOverlap()
                || !began.getOffsetAfter().equals(offset)) {
            return 0;
        }
        return cron.schedule()
                .countBetween(latest(from, began.getDateTimeAfter()), earliest(to, began.getDateTimeBefore()));
    }

    /** 1 if {@link Series.DstGap#SHIFT} puts an occurrence of its own on the instant of {@code next}'s jump. */
    private static long shiftedInto(Series.Cron cron, ZoneOffsetTransition next) {
        boolean own = next.isGap()
                && cron.gap() == Series.DstGap.SHIFT
                && matchesIn(cron.schedule(), next)
                && !cron.schedule().matches(next.getDateTimeAfter());
        return own ? 1 : 0;
    }

    /** The wall time, at {@code offset}, of the first whole second at or after {@code millis}. */
    private static LocalDateTime wallAtOrAfter(long millis, ZoneOffset offset) {
        long second = Math.floorDiv(millis, 1000L) + (Math.floorMod(millis, 1000L) == 0 ? 0 : 1);
        return LocalDateTime.ofEpochSecond(second, 0, offset);
    }

    private static LocalDateTime latest(LocalDateTime a, LocalDateTime b) {
        return a.isAfter(b) ? a : b;
    }

    private static LocalDateTime earliest(LocalDateTime a, LocalDateTime b) {
        return a.isBefore(b) ? a : b;
    }

    /** The first match at offset {@code offset} in [t, pieceEnd), honouring {@link Series.DstOverlap#ONCE}. */
    private static long inPiece(Series.Cron cron, ZoneRules rules, ZoneOffset offset, long t, long pieceEnd) {
        LocalDateTime match = cron.schedule().nextOrSame(wallAtOrAfter(t, offset));
        while (match != null) {
            long instant = match.toEpochSecond(offset) * 1000;
            if (instant >= pieceEnd) {
                return NONE;
            }
            if (!(cron.overlap() == Series.DstOverlap.ONCE && isSecondOfTwo(rules, match, offset))) {
                return instant;
            }
            match = cron.schedule().nextAfter(match);
        }
        return NONE;
    }

    private static boolean isSecondOfTwo(ZoneRules rules, LocalDateTime wall, ZoneOffset offset) {
        ZoneOffsetTransition transition = rules.getTransition(wall);
        return transition != null
                && transition.isOverlap()
                && transition.getOffsetAfter().equals(offset);
    }

    /** Whether some wall time inside the gap of {@code gap} matches. */
    private static boolean matchesIn(CronSchedule schedule, ZoneOffsetTransition gap) {
        LocalDateTime match = schedule.nextOrSame(gap.getDateTimeBefore());
        return match != null && match.isBefore(gap.getDateTimeAfter());
    }
}

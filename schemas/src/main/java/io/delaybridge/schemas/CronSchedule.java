package io.delaybridge.schemas;

import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.Month;

/**
 * A cron expression matched against wall-clock time ({@link LocalDateTime}), with no time zone: turning a wall time
 * into an instant, and what to do on daylight-saving gaps and overlaps, is {@link SeriesTimeline}'s job, so that the
 * choice is ours and explicit rather than a side effect of a library's date arithmetic.
 *
 * <h2>Grammar</h2>
 * Five fields, {@code minute hour day-of-month month day-of-week} (second 0), or six with the second first:
 * <table>
 *   <caption>Fields</caption>
 *   <tr><th>field</th><th>values</th></tr>
 *   <tr><td>second (six-field form only)</td><td>0-59</td></tr>
 *   <tr><td>minute</td><td>0-59</td></tr>
 *   <tr><td>hour</td><td>0-23</td></tr>
 *   <tr><td>day of month</td><td>1-31</td></tr>
 *   <tr><td>month</td><td>1-12 or JAN-DEC</td></tr>
 *   <tr><td>day of week</td><td>0-7 or SUN-SAT (0 and 7 are Sunday)</td></tr>
 * </table>
 * Each field is {@code *}, a value, a range {@code a-b}, a step <code>&#42;/n</code>, {@code a-b/n} or {@code a/n} (from a
 * to the end), or a comma list of these; {@code ?} means {@code *} in the day fields. Names are case-insensitive.
 * As in POSIX cron, when both day fields are restricted (neither starts with {@code *} or {@code ?}) a day matches if
 * either does: {@code 30 4 1,15 * 5} runs on the 1st, the 15th and every Friday. Quartz's {@code L}, {@code W},
 * {@code #} and {@code @daily}-style macros are not supported and are rejected, not guessed at. An expression that
 * can never match ({@code 0 9 30 2 *}) is rejected.
 *
 * <p>Immutable and thread-safe.
 */
public final class CronSchedule {

    /** Longer expressions are rejected before parsing. */
    static final int MAX_LENGTH = 200;

    static final String FORMS = "use five fields (minute hour day-of-month month day-of-week, e.g. 30 2 * * *) "
            + "or six with the second first (0 30 2 * * *)";

    /** Feb 29 recurs at least every 8 years (2096, 2104); any other valid expression much sooner. */
    private static final int SEARCH_YEARS = 9;

    private final String expression;
    private final long seconds;
    private final long minutes;
    private final long hours;
    private final long daysOfMonth;
    private final long months;
    private final long daysOfWeek;
    private final boolean domRestricted;
    private final boolean dowRestricted;

    private CronSchedule(String expression, long[] masks, boolean domRestricted, boolean dowRestricted) {
        this.expression = expression;
        this.seconds = masks[0];
        this.minutes = masks[1];
        this.hours = masks[2];
        this.daysOfMonth = masks[3];
        this.months = masks[4];
        this.daysOfWeek = masks[5];
        this.domRestricted = domRestricted;
        this.dowRestricted = dowRestricted;
    }

    /**
     * Parses a cron expression.
     *
     * @param text five or six fields, e.g. {@code 30 2 * * *}
     * @return the schedule
     * @throws IllegalArgumentException naming the field, the value and what is accepted, if the text is not a
     *                                  supported cron expression or never matches
     */
    public static CronSchedule parse(String text) {
        String t = text == null ? "" : text.strip();
        if (t.isEmpty()) {
            throw notCron(text, "empty");
        }
        if (t.length() > MAX_LENGTH) {
            throw notCron(text, "longer than " + MAX_LENGTH + " characters");
        }
        if (t.charAt(0) == '@') {
            throw notCron(text, "macros such as @daily are not supported");
        }
        String[] fields = t.split("\\s+");
        if (fields.length != 5 && fields.length != 6) {
            throw notCron(text, fields.length + " fields");
        }
        int shift = fields.length == 6 ? 0 : 1;
        long[] masks = new long[6];
        masks[0] = 1L;
        for (int i = shift; i < 6; i++) {
            masks[i] = CronField.values()[i].parse(text, fields[i - shift]);
        }
        String dom = fields[3 - shift];
        String dow = fields[5 - shift];
        CronSchedule cron = new CronSchedule(t, masks, restricted(dom), restricted(dow));
        if (!cron.canMatch()) {
            throw notCron(text, "never matches: no month of the expression has day " + lowest(masks[3]));
        }
        return cron;
    }

    /** @return the expression as given, surrounding whitespace removed */
    public String expression() {
        return expression;
    }

    /** @return whether the expression has a seconds field that is not just second 0 */
    public boolean hasSeconds() {
        return seconds != 1L;
    }

    /**
     * The first wall time at or after {@code from} that matches; fractions of a second in {@code from} round up.
     *
     * @param from any wall time
     * @return the next match, or {@code null} if none within 9 years (only past year 9999 for a valid expression)
     */
    public LocalDateTime nextOrSame(LocalDateTime from) {
        LocalDateTime start = from.getNano() == 0 ? from : from.withNano(0).plusSeconds(1);
        LocalDate date = start.toLocalDate();
        LocalDate limit = date.plusYears(SEARCH_YEARS);
        int fromSecond = start.toLocalTime().toSecondOfDay();
        while (!date.isAfter(limit)) {
            if (!has(months, date.getMonthValue())) {
                date = date.withDayOfMonth(1).plusMonths(1);
                fromSecond = 0;
                continue;
            }
            if (dayMatches(date)) {
                int s = nextSecondOfDay(fromSecond);
                if (s >= 0) {
                    return date.atTime(LocalTime.ofSecondOfDay(s));
                }
            }
            date = date.plusDays(1);
            fromSecond = 0;
        }
        return null;
    }

    /**
     * @param from any wall time
     * @return the first match strictly after {@code from}, or {@code null} as for {@link #nextOrSame}
     */
    public LocalDateTime nextAfter(LocalDateTime from) {
        return nextOrSame(from.withNano(0).plusSeconds(1));
    }

    /**
     * Counts matches in a range of wall times without stepping through them: O(days), so a catch-up after a long
     * outage does not cost one step per missed second.
     *
     * @param from first wall time counted, a whole second
     * @param to   first wall time not counted, a whole second
     * @return the number of matches {@code m} with {@code from <= m < to}
     */
    public long countBetween(LocalDateTime from, LocalDateTime to) {
        if (!from.isBefore(to)) {
            return 0;
        }
        LocalDate day = from.toLocalDate();
        LocalDate last = to.toLocalDate();
        int fromSecond = from.toLocalTime().toSecondOfDay();
        long total = 0;
        while (day.isBefore(last)) {
            if (!has(months, day.getMonthValue())) {
                day = day.withDayOfMonth(1).plusMonths(1);
                fromSecond = 0;
                continue;
            }
            if (dayMatches(day)) {
                total += countFromSecond(fromSecond);
            }
            day = day.plusDays(1);
            fromSecond = 0;
        }
        if (day.equals(last) && has(months, day.getMonthValue()) && dayMatches(day)) {
            total += countFromSecond(fromSecond)
                    - countFromSecond(to.toLocalTime().toSecondOfDay());
        }
        return total;
    }

    /**
     * @param wall a wall time, a whole second
     * @return whether it matches
     */
    public boolean matches(LocalDateTime wall) {
        return wall.getNano() == 0 && wall.equals(nextOrSame(wall));
    }

    /** Matches on a matching day at or after second-of-day {@code from}. */
    private long countFromSecond(int from) {
        if (from >= 24 * 3600) {
            return 0;
        }
        int h0 = from / 3600;
        int m0 = from / 60 % 60;
        int s0 = from % 60;
        long perMinute = Long.bitCount(seconds);
        long perHour = Long.bitCount(minutes) * perMinute;
        long total = Long.bitCount(hours & (-1L << (h0 + 1))) * perHour;
        if (has(hours, h0)) {
            total += Long.bitCount(minutes & (-1L << (m0 + 1))) * perMinute;
            if (has(minutes, m0)) {
                total += Long.bitCount(seconds & (-1L << s0));
            }
        }
        return total;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CronSchedule && ((CronSchedule) o).expression.equals(expression);
    }

    @Override
    public int hashCode() {
        return expression.hashCode();
    }

    @Override
    public String toString() {
        return expression;
    }

    private boolean dayMatches(LocalDate date) {
        boolean dom = has(daysOfMonth, date.getDayOfMonth());
        boolean dow = has(daysOfWeek, date.getDayOfWeek().getValue() % 7);
        if (domRestricted && dowRestricted) {
            return dom || dow;
        }
        return dom && dow;
    }

    private int nextSecondOfDay(int fromSecond) {
        int h0 = fromSecond / 3600;
        int m0 = fromSecond / 60 % 60;
        int s0 = fromSecond % 60;
        for (int h = nextBit(hours, h0); h >= 0; h = nextBit(hours, h + 1)) {
            for (int m = nextBit(minutes, h == h0 ? m0 : 0); m >= 0; m = nextBit(minutes, m + 1)) {
                int s = nextBit(seconds, h == h0 && m == m0 ? s0 : 0);
                if (s >= 0) {
                    return h * 3600 + m * 60 + s;
                }
            }
        }
        return -1;
    }

    /** Whether some month of the expression has one of its days of month (day of week always finds one). */
    private boolean canMatch() {
        if (dowRestricted) {
            return true;
        }
        int lowestDay = lowest(daysOfMonth);
        for (Month m : Month.values()) {
            if (has(months, m.getValue()) && lowestDay <= m.maxLength()) {
                return true;
            }
        }
        return false;
    }

    private static boolean restricted(String field) {
        return !(field.startsWith("*") || field.startsWith("?"));
    }

    static boolean has(long mask, int bit) {
        return (mask & (1L << bit)) != 0;
    }

    private static int nextBit(long mask, int from) {
        if (from >= Long.SIZE) {
            return -1;
        }
        long rest = mask & (-1L << from);
        return rest == 0 ? -1 : Long.numberOfTrailingZeros(rest);
    }

    private static int lowest(long mask) {
        return Long.numberOfTrailingZeros(mask);
    }

    static IllegalArgumentException notCron(String text, String reason) {
        return new IllegalArgumentException(
                ContractViolation.quote(text) + " is not a cron expression: " + reason + "; " + FORMS);
    }
}

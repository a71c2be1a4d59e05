package io.delaybridge.schemas;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * The headers of a recurring record, a series, read into a {@link Series}, or a {@link ContractViolation} with a code
 * of its own. The bridge reads a record with {@link SeriesRecord#read} before {@link IntakeParser}, which alone
 * rejects these headers as {@link ErrorCode#UNKNOWN_HEADER}.
 *
 * <pre>
 * delay-target: reports.nightly
 * delay-id:     nightly-report
 * delay-cron:   30 2 * * *
 * delay-zone:   Europe/Berlin
 * </pre>
 *
 * <table>
 *   <caption>Series headers</caption>
 *   <tr><th>header</th><th>required</th><th>value</th></tr>
 *   <tr><td>{@value #CRON}</td><td rowspan="2">exactly one</td><td>a cron expression, see {@link CronSchedule}</td></tr>
 *   <tr><td>{@value #EVERY}</td><td>an interval in the grammar of {@value DelayHeaders#DELAY_MS}, at least 1 s</td></tr>
 *   <tr><td>{@value #ZONE}</td><td>with {@value #CRON}; refused with {@value #EVERY}</td>
 *       <td>IANA zone: {@code Europe/Berlin}, {@code UTC}</td></tr>
 *   <tr><td>{@value DelayHeaders#ID}</td><td>yes</td><td>the series id</td></tr>
 *   <tr><td>{@value DelayHeaders#UNTIL}</td><td>no</td><td>start: no occurrence before it (for {@value #EVERY},
 *       the first occurrence), nor before the record timestamp; default: the record timestamp (for
 *       {@value #EVERY}: plus one interval)</td></tr>
 *   <tr><td>{@value #END}</td><td>no</td><td>no occurrence after this instant (inclusive)</td></tr>
 *   <tr><td>{@value #COUNT}</td><td>no</td><td>at most this many occurrences</td></tr>
 *   <tr><td>{@value #DST_GAP}</td><td>no</td><td>{@code shift} (default) or {@code skip}</td></tr>
 *   <tr><td>{@value #DST_OVERLAP}</td><td>no</td><td>{@code once} (default) or {@code twice}</td></tr>
 *   <tr><td>{@value #MISSED}</td><td>no</td><td>{@code one} (default), {@code all} or {@code skip}</td></tr>
 * </table>
 *
 * <h2>Order of checks</h2>
 * Header level first ({@link ErrorCode#DUPLICATE_HEADER}, {@link ErrorCode#INVALID_HEADER}), then: what recurs
 * ({@link ErrorCode#MISSING_SCHEDULE}, {@link ErrorCode#CONFLICTING_SCHEDULE}), the id
 * ({@link ErrorCode#MISSING_SERIES_ID}, {@link ErrorCode#INVALID_ID}), the recurrence ({@link ErrorCode#INVALID_CRON},
 * {@link ErrorCode#MISSING_ZONE}, {@link ErrorCode#INVALID_ZONE}, {@link ErrorCode#INVALID_DST_GAP},
 * {@link ErrorCode#INVALID_DST_OVERLAP}; or {@link ErrorCode#INVALID_INTERVAL}, {@link ErrorCode#ZONE_WITH_INTERVAL}),
 * the bounds ({@link ErrorCode#INVALID_DELAY} for {@value DelayHeaders#UNTIL}, {@link ErrorCode#INVALID_END},
 * {@link ErrorCode#INVALID_COUNT}), {@link ErrorCode#INVALID_MISSED}, and last {@link ErrorCode#EMPTY_SERIES} when no
 * occurrence falls between start and end.
 */
public final class SeriesHeaders {

    /** A cron expression in {@value #ZONE}: five fields, or six with seconds first. */
    public static final String CRON = "delay-cron";

    /** An interval of elapsed time, in the grammar of {@value DelayHeaders#DELAY_MS}; at least one second. */
    public static final String EVERY = "delay-every";

    /** The IANA zone a {@value #CRON} expression is read in. */
    public static final String ZONE = "delay-zone";

    /** No occurrence after this instant (inclusive); epoch milliseconds or ISO-8601 with an offset. */
    public static final String END = "delay-end";

    /** At most this many occurrences, a positive integer. */
    public static final String COUNT = "delay-count";

    /** A matching wall time skipped by a spring-forward change: {@code shift} (default) or {@code skip}. */
    public static final String DST_GAP = "delay-dst-gap";

    /** A matching wall time repeated by a fall-back change: {@code once} (default) or {@code twice}. */
    public static final String DST_OVERLAP = "delay-dst-overlap";

    /** Occurrences missed while nothing could deliver them: {@code one} (default), {@code all} or {@code skip}. */
    public static final String MISSED = "delay-missed";

    /** The headers that make a record a series, or only belong to one. */
    public static final List<String> NAMES = List.of(CRON, EVERY, ZONE, END, COUNT, DST_GAP, DST_OVERLAP, MISSED);

    /** Shortest {@value #EVERY}: the finest a cron expression goes too. */
    public static final long MIN_INTERVAL_MILLIS = 1000;

    private static final int MAX_COUNT_DIGITS = 18;

    private static final List<String> READ = List.of(
            CRON,
            EVERY,
            ZONE,
            END,
            COUNT,
            DST_GAP,
            DST_OVERLAP,
            MISSED,
            DelayHeaders.ID,
            DelayHeaders.UNTIL,
            DelayHeaders.DELAY_MS);

    private SeriesHeaders() {}

    /**
     * Reads the series headers of a record.
     *
     * @param headers               the record's headers
     * @param recordTimestampMillis the record's timestamp: the default start
     * @return the series, or empty if the record has none of {@link #NAMES} (a one-shot record)
     * @throws ContractViolation if the record is a series that breaks the contract; see the order of checks
     */
    public static Optional<Series> parse(Headers headers, long recordTimestampMillis) throws ContractViolation {
        Map<String, String> v = read(headers);
        boolean cron = v.containsKey(CRON);
        boolean every = v.containsKey(EVERY);
        if (!cron && !every) {
            for (String name : NAMES) {
                if (v.containsKey(name)) {
                    throw new ContractViolation(
                            ErrorCode.MISSING_SCHEDULE,
                            name + ": " + quote(v, name)
                                    + " belongs to a series, but the record has no " + CRON + " or " + EVERY
                                    + "; add one, or drop " + name + " for a one-shot record");
                }
            }
            return Optional.empty();
        }
        checkCombination(v, cron, every);
        String id = id(v);
        Series.Recurrence recurrence = cron ? SeriesValues.cron(v) : SeriesValues.every(v);
        long start = start(recurrence, v, recordTimestampMillis);
        long end = v.containsKey(END) ? SeriesValues.end(v.get(END)) : Series.UNBOUNDED;
        long count = v.containsKey(COUNT) ? count(v.get(COUNT)) : Series.UNBOUNDED;
        Series.Missed missed =
                SeriesValues.choice(v, MISSED, Series.Missed.class, Series.Missed.ONE, ErrorCode.INVALID_MISSED);
        if (end < start) {
            throw new ContractViolation(
                    ErrorCode.EMPTY_SERIES,
                    END + ": " + quote(v, END) + " is before " + startText(start)
                            + "; the series would have no occurrence");
        }
        Series series = new Series(id, recurrence, start, end, count, missed);
        if (SeriesPlanner.first(series) == null) {
            throw new ContractViolation(
                    ErrorCode.EMPTY_SERIES,
                    (v.containsKey(END)
                                    ? END + ": " + quote(v, END) + " comes before the first occurrence after "
                                    : "no occurrence at or after ")
                            + startText(start) + "; the series would have no occurrence");
        }
        return Optional.of(series);
    }

    private static void checkCombination(Map<String, String> v, boolean cron, boolean every) throws ContractViolation {
        if (cron && every) {
            throw new ContractViolation(
                    ErrorCode.CONFLICTING_SCHEDULE,
                    "both " + CRON + " " + quote(v, CRON) + " and " + EVERY + " " + quote(v, EVERY)
                            + " given; give exactly one");
        }
        if (v.containsKey(DelayHeaders.DELAY_MS)) {
            throw new ContractViolation(
                    ErrorCode.CONFLICTING_SCHEDULE,
                    DelayHeaders.DELAY_MS + ": "
                            + quote(v, DelayHeaders.DELAY_MS) + " given with " + (cron ? CRON : EVERY)
                            + "; a series starts at " + DelayHeaders.UNTIL + " (or the record timestamp), drop "
                            + DelayHeaders.DELAY_MS);
        }
    }

    private static String id(Map<String, String> v) throws ContractViolation {
        String id = v.get(DelayHeaders.ID);
        if (id == null) {
            throw new ContractViolation(
                    ErrorCode.MISSING_SERIES_ID,
                    "no " + DelayHeaders.ID
                            + "; a series needs an id to be replaced or cancelled, e.g. delay-id: nightly-report");
        }
        if (id.isBlank() || Utf8.encodedLength(id) > IntakeParser.MAX_ID_BYTES) {
            throw new ContractViolation(
                    ErrorCode.INVALID_ID,
                    DelayHeaders.ID + ": " + ContractViolation.quote(id) + " is not a series id: blank or over "
                            + IntakeParser.MAX_ID_BYTES + " UTF-8 bytes");
        }
        return id;
    }

    /**
     * No occurrence before the record was written: a {@value DelayHeaders#UNTIL} in the past counts from the record
     * timestamp, keeping an interval's phase, so that an old start does not make the intake step over years of
     * occurrences it could never have delivered.
     */
    private static long start(Series.Recurrence recurrence, Map<String, String> v, long timestamp)
            throws ContractViolation {
        boolean until = v.containsKey(DelayHeaders.UNTIL);
        long floor = until ? SeriesValues.until(v.get(DelayHeaders.UNTIL)) : timestamp;
        if (!(recurrence instanceof Series.Every every)) {
            return Math.max(floor, timestamp);
        }
        long interval = every.intervalMillis();
        try {
            if (!until) {
                return Math.addExact(timestamp, interval);
            }
            if (floor >= timestamp) {
                return floor;
            }
            return Math.addExact(
                    floor, Math.multiplyExact(Math.floorDiv(timestamp - floor - 1, interval) + 1, interval));
        } catch (ArithmeticException e) {
            throw new ContractViolation(
                    ErrorCode.INVALID_INTERVAL, EVERY + ": the first occurrence overflows; give a shorter interval");
        }
    }

    private static long count(String text) throws ContractViolation {
        String t = text.strip();
        if (!t.isEmpty() && t.length() <= MAX_COUNT_DIGITS && DelayText.allAsciiDigits(t)) {
            long count = Long.parseLong(t);
            if (count > 0) {
                return count;
            }
        }
        throw new ContractViolation(
                ErrorCode.INVALID_COUNT,
                COUNT + ": " + ContractViolation.quote(text)
                        + " is not a count; use a positive integer (1, 2, ...) or leave the header out for no limit");
    }

    private static String startText(long start) {
        return "the start " + java.time.Instant.ofEpochMilli(start) + ": " + DelayHeaders.UNTIL
                + " or, if later, the record timestamp";
    }

    static String quote(Map<String, String> v, String name) {
        return ContractViolation.quote(v.get(name));
    }

    /** Decodes the headers a series reads; other headers are {@link IntakeParser}'s. */
    private static Map<String, String> read(Headers headers) throws ContractViolation {
        Map<String, String> values = new HashMap<>();
        if (headers == null) {
            return values;
        }
        for (Header h : headers) {
            if (!READ.contains(h.key())) {
                continue;
            }
            byte[] raw = h.value() == null ? new byte[0] : h.value();
            String value;
            try {
                value = Utf8.decode(raw, 0, raw.length);
            } catch (Utf8.MalformedUtf8 e) {
                throw new ContractViolation(
                        ErrorCode.INVALID_HEADER,
                        h.key() + ": value is not valid UTF-8 (" + e.getMessage()
                                + "); header values are UTF-8 strings");
            }
            String before = values.putIfAbsent(h.key(), value);
            if (before != null) {
                throw new ContractViolation(
                        ErrorCode.DUPLICATE_HEADER,
                        h.key() + ": given more than once (first "
                                + ContractViolation.quote(before) + ", then " + ContractViolation.quote(value)
                                + "); give each control header once");
            }
        }
        return values;
    }
}

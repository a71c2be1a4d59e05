package io.delaybridge.connectors;

import io.delaybridge.schemas.ContractViolation;
import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.schemas.Series;
import io.delaybridge.schemas.SeriesHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * When a recurring record (a series, docs/recurring-schedules.md) is delivered: a cron expression in a time zone, or
 * a fixed interval, with optional start, end, count, daylight-saving and missed-run choices. Immutable: every method
 * returns a new instance. Give it to {@link DelayedProducer#sendSeries}, {@link DelayedRecords#series} or
 * {@link Delays#series}.
 *
 * <pre>{@code
 * // 02:30 Berlin time every day, 30 times; after an outage, every missed run
 * Repeat nightly = Repeat.cron("30 2 * * *", ZoneId.of("Europe/Berlin"))
 *         .times(30)
 *         .missed(Series.Missed.ALL);
 * producer.sendSeries("reports.nightly", "report", "{}", "nightly-report", nightly);
 *
 * // every 15 minutes until the end of the year
 * Repeat.every(Duration.ofMinutes(15)).endingAt(Instant.parse("2027-01-01T00:00:00Z"));
 * }</pre>
 *
 * <p>The first writes the headers {@code delay-cron: 30 2 * * *}, {@code delay-zone: Europe/Berlin},
 * {@code delay-count: 30} and {@code delay-missed: all}, beside {@code delay-target} and {@code delay-id}. Every value
 * is checked as the bridge checks it (the same parser), so a mistake the bridge would deadletter (a bad cron, a
 * zone offset instead of a region, an end before the start, an interval under a second) throws
 * {@link IllegalArgumentException} here, naming the header and what is accepted. End a series with
 * {@link DelayedProducer#cancel(String)} and its id, or replace it by sending another under the same id.
 */
public final class Repeat {

    private final String cron;
    private final ZoneId zone;
    private final Duration every;
    private final Options options;

    /** What is optional, each null when not given. */
    private record Options(
            Instant start,
            Instant end,
            Long count,
            Series.DstGap dstGap,
            Series.DstOverlap dstOverlap,
            Series.Missed missed) {

        static final Options NONE = new Options(null, null, null, null, null, null);
    }

    private Repeat(String cron, ZoneId zone, Duration every, Options options) {
        this.cron = cron;
        this.zone = zone;
        this.every = every;
        this.options = options;
        check();
    }

    private Repeat with(Options changed) {
        return new Repeat(cron, zone, every, changed);
    }

    /**
     * At the wall-clock times of a cron expression in {@code zone} ({@value SeriesHeaders#CRON},
     * {@value SeriesHeaders#ZONE}).
     *
     * @param expression 5 fields ({@code minute hour day-of-month month day-of-week}) or 6 with the second first
     * @param zone       a region such as {@code Europe/Berlin} or {@code UTC}; a fixed offset ({@code +01:00}) is
     *                   refused, as by the bridge
     * @return the schedule
     * @throws IllegalArgumentException if the expression or zone is refused
     */
    public static Repeat cron(String expression, ZoneId zone) {
        if (expression == null || zone == null) {
            throw new IllegalArgumentException("cron expression and zone are required, e.g. "
                    + "Repeat.cron(\"30 2 * * *\", ZoneId.of(\"Europe/Berlin\"))");
        }
        return new Repeat(expression, zone, null, Options.NONE);
    }

    /**
     * Every {@code interval} of elapsed time ({@value SeriesHeaders#EVERY}), the first one interval after the record
     * unless {@link #startingAt} says otherwise.
     *
     * @param interval at least one second, whole milliseconds
     * @return the schedule
     * @throws IllegalArgumentException if the interval is null or under one second
     */
    public static Repeat every(Duration interval) {
        if (interval == null) {
            throw new IllegalArgumentException("interval is null; give e.g. Duration.ofMinutes(15)");
        }
        return new Repeat(null, null, interval, Options.NONE);
    }

    /**
     * @param start no occurrence before it ({@value DelayHeaders#UNTIL}); for an interval, the first occurrence
     * @return a copy with the start
     */
    public Repeat startingAt(Instant start) {
        Options o = options;
        return with(new Options(require(start, "start"), o.end(), o.count(), o.dstGap(), o.dstOverlap(), o.missed()));
    }

    /**
     * @param end no occurrence after it, inclusive ({@value SeriesHeaders#END})
     * @return a copy with the end
     */
    public Repeat endingAt(Instant end) {
        Options o = options;
        return with(new Options(o.start(), require(end, "end"), o.count(), o.dstGap(), o.dstOverlap(), o.missed()));
    }

    /**
     * @param count at most this many occurrences ({@value SeriesHeaders#COUNT}), counted delivered or missed
     * @return a copy with the count
     */
    public Repeat times(long count) {
        Options o = options;
        return with(new Options(o.start(), o.end(), count, o.dstGap(), o.dstOverlap(), o.missed()));
    }

    /**
     * @param gap a wall time that a spring-forward change skips: shifted to the jump (the default) or skipped
     *            ({@value SeriesHeaders#DST_GAP}); cron only
     * @return a copy with the choice
     */
    public Repeat dstGap(Series.DstGap gap) {
        Options o = options;
        return with(new Options(o.start(), o.end(), o.count(), require(gap, "gap"), o.dstOverlap(), o.missed()));
    }

    /**
     * @param overlap a wall time that a fall-back change repeats: once (the default) or twice
     *                ({@value SeriesHeaders#DST_OVERLAP}); cron only
     * @return a copy with the choice
     */
    public Repeat dstOverlap(Series.DstOverlap overlap) {
        Options o = options;
        return with(new Options(o.start(), o.end(), o.count(), o.dstGap(), require(overlap, "overlap"), o.missed()));
    }

    /**
     * @param missed occurrences that passed while nothing could deliver them: the latest (the default), all, or
     *               none ({@value SeriesHeaders#MISSED})
     * @return a copy with the choice
     */
    public Repeat missed(Series.Missed missed) {
        Options o = options;
        return with(new Options(o.start(), o.end(), o.count(), o.dstGap(), o.dstOverlap(), require(missed, "missed")));
    }

    /** The series headers, {@value DelayHeaders#ID} left out: the record's builder writes it. */
    List<Header> headers() {
        List<Header> headers = new ArrayList<>(6);
        if (cron != null) {
            headers.add(header(SeriesHeaders.CRON, cron));
            headers.add(header(SeriesHeaders.ZONE, zone.getId()));
        } else {
            headers.add(header(SeriesHeaders.EVERY, Long.toString(every.toMillis())));
        }
        if (options.start() != null) {
            headers.add(header(DelayHeaders.UNTIL, Long.toString(options.start().toEpochMilli())));
        }
        if (options.end() != null) {
            headers.add(header(SeriesHeaders.END, Long.toString(options.end().toEpochMilli())));
        }
        if (options.count() != null) {
            headers.add(header(SeriesHeaders.COUNT, options.count().toString()));
        }
        if (options.dstGap() != null) {
            headers.add(header(SeriesHeaders.DST_GAP, options.dstGap().headerValue()));
        }
        if (options.dstOverlap() != null) {
            headers.add(header(SeriesHeaders.DST_OVERLAP, options.dstOverlap().headerValue()));
        }
        if (options.missed() != null) {
            headers.add(header(SeriesHeaders.MISSED, options.missed().headerValue()));
        }
        return List.copyOf(headers);
    }

    /** The bridge's own check of the series headers, under a stand-in id, for a record written at the start. */
    private void check() {
        if (zone instanceof ZoneOffset) {
            throw new IllegalArgumentException(SeriesHeaders.ZONE + ": " + zone + " is a fixed offset; give a "
                    + "region such as Europe/Berlin or UTC, whose clock the schedule follows");
        }
        if (every != null && every.toNanos() % 1_000_000 != 0) {
            throw new IllegalArgumentException(
                    SeriesHeaders.EVERY + ": " + every + " is not whole milliseconds; round it to a millisecond");
        }
        RecordHeaders all = new RecordHeaders(headers().toArray(Header[]::new));
        all.add(header(DelayHeaders.ID, "check"));
        try {
            SeriesHeaders.parse(
                    all, options.start() == null ? 0 : options.start().toEpochMilli());
        } catch (ContractViolation v) {
            throw new IllegalArgumentException(v.getMessage() + " (" + v.code() + ")");
        }
    }

    private static Header header(String name, String value) {
        return new RecordHeader(name, value.getBytes(StandardCharsets.UTF_8));
    }

    private static <T> T require(T value, String what) {
        if (value == null) {
            throw new IllegalArgumentException(what + " is null");
        }
        return value;
    }

    @Override
    public String toString() {
        return "Repeat"
                + headers().stream()
                        .map(h -> h.key() + "=" + new String(h.value(), StandardCharsets.UTF_8))
                        .toList();
    }
}

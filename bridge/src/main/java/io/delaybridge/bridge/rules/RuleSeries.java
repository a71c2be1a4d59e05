package io.delaybridge.bridge.rules;

import io.delaybridge.schemas.DelayText;
import io.delaybridge.schemas.SeriesHeaders;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.Headers;

/**
 * What makes a scheduling rule write a series (docs/recurring-schedules.md) instead of a one-shot record: a cron
 * expression in a zone, or an interval, and optionally an end, a count and a missed-run policy. Like a rule's delay,
 * the series counts from the source record's timestamp, whatever the intake's timestamp type and however long the
 * rules took: it starts there (an interval's first occurrence one interval later), or at the rule's delay after it,
 * and ends {@code endAfterMillis} after it.
 *
 * @param cron           a cron expression ({@value SeriesHeaders#CRON}), or null
 * @param zone           the zone of {@code cron} ({@value SeriesHeaders#ZONE}); null with {@code every}
 * @param every          an interval in the grammar of {@code delay-ms} ({@value SeriesHeaders#EVERY}), or null
 * @param endAfterMillis the last instant an occurrence may fall on, after the source record's timestamp; null: none
 * @param count          at most this many occurrences ({@value SeriesHeaders#COUNT}); null: no limit
 * @param missed         the missed-run policy ({@value SeriesHeaders#MISSED}); null: the series' default
 */
public record RuleSeries(String cron, String zone, String every, Long endAfterMillis, Long count, String missed) {

    /** The start of a series from a source record with {@code timestamp}, when the rule has no delay. */
    long start(long timestamp) {
        if (cron != null) {
            return timestamp;
        }
        long interval = DelayText.parseDelayMillis(every);
        return timestamp > Long.MAX_VALUE - interval ? Long.MAX_VALUE : timestamp + interval;
    }

    /** Adds the series headers of a record whose source record has {@code timestamp}. */
    void addHeaders(Headers headers, long timestamp) {
        if (cron != null) {
            headers.add(SeriesHeaders.CRON, utf8(cron));
            headers.add(SeriesHeaders.ZONE, utf8(zone));
        } else {
            headers.add(SeriesHeaders.EVERY, utf8(every));
        }
        if (endAfterMillis != null) {
            long end = timestamp > Long.MAX_VALUE - endAfterMillis ? Long.MAX_VALUE : timestamp + endAfterMillis;
            headers.add(SeriesHeaders.END, utf8(Long.toString(end)));
        }
        if (count != null) {
            headers.add(SeriesHeaders.COUNT, utf8(count.toString()));
        }
        if (missed != null) {
            headers.add(SeriesHeaders.MISSED, utf8(missed));
        }
    }

    @Override
    public String toString() {
        return (cron != null ? "cron " + cron + " " + zone : "every " + every)
                + (endAfterMillis == null ? "" : " for " + DelayText.formatMillis(endAfterMillis))
                + (count == null ? "" : ", at most " + count + " times")
                + (missed == null ? "" : ", missed: " + missed);
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}

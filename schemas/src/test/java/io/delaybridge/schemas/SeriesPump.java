package io.delaybridge.schemas;

import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * A test stand-in for the bridge's pump around {@link SeriesPlanner}, driven by a clock the test steps: it stores the
 * pending occurrence, and whenever the clock reaches it, plans and records what would be delivered and when.
 */
final class SeriesPump {

    /** What was delivered: the occurrence and the clock reading when it went out. */
    record Delivery(long number, long dueAtMillis, long atMillis) {}

    private final Series series;
    private final SeriesPlanner planner;
    private final List<Delivery> deliveries = new ArrayList<>();
    private long now;
    private SeriesPlanner.Occurrence pending;
    private long skipped;

    /** Reads the series at {@code nowMillis} (the intake), like the bridge would. */
    SeriesPump(Series series, long nowMillis) {
        this.series = series;
        this.planner = new SeriesPlanner(SeriesPlanner.DEFAULT_SKIP_GRACE_MILLIS);
        this.now = nowMillis;
        take(planner.start(series, nowMillis));
    }

    /** Steps the clock to {@code untilMillis}, the pump waking at each pending occurrence on time. */
    SeriesPump runUntil(long untilMillis) {
        while (pending != null && pending.dueAtMillis() <= untilMillis) {
            now = Math.max(now, pending.dueAtMillis());
            take(planner.advance(series, pending, now));
        }
        now = Math.max(now, untilMillis);
        return this;
    }

    /** Runs until {@code fromMillis}, then nothing runs until {@code toMillis}, when the pump wakes once. */
    SeriesPump outage(long fromMillis, long toMillis) {
        runUntil(fromMillis);
        now = toMillis;
        if (pending != null && pending.dueAtMillis() <= now) {
            take(planner.advance(series, pending, now));
        }
        return this;
    }

    private void take(SeriesPlanner.Plan plan) {
        for (SeriesPlanner.Occurrence o : plan.due()) {
            deliveries.add(new Delivery(o.number(), o.dueAtMillis(), now));
        }
        skipped += plan.skipped();
        pending = plan.next();
    }

    List<Long> dueTimes() {
        return deliveries.stream().map(Delivery::dueAtMillis).toList();
    }

    List<Long> numbers() {
        return deliveries.stream().map(Delivery::number).toList();
    }

    List<Delivery> deliveries() {
        return deliveries;
    }

    SeriesPlanner.Occurrence pending() {
        return pending;
    }

    long skipped() {
        return skipped;
    }

    /** {@code 2026-03-29T03:00+02:00} as epoch millis. */
    static long ms(String offsetDateTime) {
        return OffsetDateTime.parse(offsetDateTime).toInstant().toEpochMilli();
    }

    static List<Long> ms(String... offsetDateTimes) {
        List<Long> out = new ArrayList<>();
        for (String t : offsetDateTimes) {
            out.add(ms(t));
        }
        return out;
    }

    /** Headers from name/value pairs. */
    static RecordHeaders headers(String... nameValue) {
        RecordHeaders h = new RecordHeaders();
        for (int i = 0; i < nameValue.length; i += 2) {
            h.add(nameValue[i], nameValue[i + 1].getBytes(StandardCharsets.UTF_8));
        }
        return h;
    }

    /** A series read from headers, failing the test if they break the contract. */
    static Series series(long recordTimestampMillis, String... nameValue) {
        try {
            return SeriesHeaders.parse(headers(nameValue), recordTimestampMillis)
                    .orElseThrow();
        } catch (ContractViolation e) {
            throw new AssertionError(e.code() + ": " + e.getMessage(), e);
        }
    }
}

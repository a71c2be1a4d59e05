package io.delaybridge.bridge.e2e;

import static io.delaybridge.bridge.e2e.Http.get;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.schemas.SeriesHeaders;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.TestServers;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.zone.ZoneRules;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Daylight saving through a running bridge (docs/recurring-schedules.md, "Daylight saving"), with no clock tricks:
 * each series is dated (record timestamp and {@code delay-until}) two days before a 2026 change of Europe/Berlin or
 * America/New_York, bounded to a few days around it, with {@code delay-missed: all}, so the bridge catches up every
 * occurrence at once. Each delivered record's {@code delay-due-at} and {@code delay-occurrence} must be what the
 * documented rules give, computed here from {@link ZoneRules} alone: a gap's wall time at the instant of the jump
 * ({@code shift}) or nowhere ({@code skip}), an overlap's at the summer-time instant ({@code once}) or at both
 * ({@code twice}). And {@code delay-missed: one} and {@code skip} after an outage of five hourly occurrences.
 */
@ExtendWith(RealServersExtension.class)
class SeriesDstIT {

    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");
    private static final ZoneId NEW_YORK = ZoneId.of("America/New_York");
    private static final LocalDate BERLIN_SPRING = LocalDate.of(2026, 3, 29);
    private static final LocalDate BERLIN_FALL = LocalDate.of(2026, 10, 25);
    private static final LocalDate NEW_YORK_SPRING = LocalDate.of(2026, 3, 8);
    private static final LocalDate NEW_YORK_FALL = LocalDate.of(2026, 11, 1);
    private static final List<LocalTime> HALF_PAST_TWO = List.of(LocalTime.of(2, 30));
    private static final List<LocalTime> HALF_PAST_ONE = List.of(LocalTime.of(1, 30));
    private static final long HOUR = 3_600_000L;

    /**
     * One series written around a change: a daily (or quarter-hourly) cron from two days before {@code day}, bounded
     * by {@code count} or by {@code end} (noon local, {@code daysAfter} days after {@code day}).
     *
     * @param walls the wall times the cron expression matches each day, written out for the expectation
     */
    private record Case(
            String name,
            ZoneId zone,
            LocalDate day,
            String cron,
            List<LocalTime> walls,
            String gap,
            String overlap,
            int count,
            int daysBefore,
            int daysAfter) {

        long startMillis() {
            return day.minusDays(daysBefore).atStartOfDay(zone).toInstant().toEpochMilli();
        }

        long endMillis() {
            return count > 0
                    ? Long.MAX_VALUE
                    : day.plusDays(daysAfter)
                            .atTime(12, 0)
                            .atZone(zone)
                            .toInstant()
                            .toEpochMilli();
        }
    }

    @Test
    void everyDstChoiceIsDeliveredAtTheInstantsItsRuleGives(TestServers servers) {
        List<Case> cases = List.of(
                new Case(
                        "berlin-gap-shift", BERLIN, BERLIN_SPRING, "30 2 * * *", HALF_PAST_TWO, "shift", null, 5, 2, 0),
                new Case("berlin-gap-skip", BERLIN, BERLIN_SPRING, "30 2 * * *", HALF_PAST_TWO, "skip", null, 5, 2, 0),
                new Case(
                        "ny-gap-shift", NEW_YORK, NEW_YORK_SPRING, "30 2 * * *", HALF_PAST_TWO, "shift", null, 0, 2, 2),
                new Case("ny-gap-skip", NEW_YORK, NEW_YORK_SPRING, "30 2 * * *", HALF_PAST_TWO, "skip", null, 0, 2, 2),
                new Case(
                        "berlin-overlap-once", BERLIN, BERLIN_FALL, "30 2 * * *", HALF_PAST_TWO, null, "once", 5, 2, 0),
                new Case(
                        "berlin-overlap-twice",
                        BERLIN,
                        BERLIN_FALL,
                        "30 2 * * *",
                        HALF_PAST_TWO,
                        null,
                        "twice",
                        5,
                        2,
                        0),
                new Case(
                        "ny-overlap-once", NEW_YORK, NEW_YORK_FALL, "30 1 * * *", HALF_PAST_ONE, null, "once", 0, 2, 2),
                new Case(
                        "ny-overlap-twice",
                        NEW_YORK,
                        NEW_YORK_FALL,
                        "30 1 * * *",
                        HALF_PAST_ONE,
                        null,
                        "twice",
                        0,
                        2,
                        2),
                // several matches in one gap make one occurrence; a quarter-hourly rhythm through the repeated hour
                new Case(
                        "berlin-gap-quarters",
                        BERLIN,
                        BERLIN_SPRING,
                        "*/15 1-3 * * *",
                        quarters(),
                        "shift",
                        null,
                        0,
                        0,
                        0),
                new Case(
                        "berlin-overlap-quarters",
                        BERLIN,
                        BERLIN_FALL,
                        "*/15 1-3 * * *",
                        quarters(),
                        null,
                        "twice",
                        0,
                        0,
                        0));
        TestNames names = TestNames.unique(servers);
        String out = names.target("out");
        String run = "dst-" + System.nanoTime() + "-";
        try (KafkaClient kafka = new KafkaClient(servers.kafkaBootstrap())) {
            kafka.createIntakeWithCreateTime(names.intake(), 4);
            // one partition: a marker sent after the last settle is read after every occurrence
            kafka.createTopics(1, out);
            KafkaClient.Collector got = kafka.collect(out);
            Map<String, List<Long>> expected = new LinkedHashMap<>();
            for (Case c : cases) {
                expected.put(run + c.name(), expected(c));
            }
            long now = System.currentTimeMillis();
            for (Map.Entry<String, List<Long>> e : expected.entrySet()) {
                List<Long> due = e.getValue();
                assertTrue(due.size() >= 4 && due.get(due.size() - 1) < now, e.getKey() + " lies in the past: " + due);
            }
            try (TestBridge bridge = bridge(names, servers).start()) {
                int app = bridge.support().getLocalPort();
                for (Case c : cases) {
                    send(kafka, names, out, run, c);
                }
                int total = expected.values().stream().mapToInt(List::size).sum() / 2;
                await().atMost(WAIT).until(() -> got.size() >= total);
                // each series is deleted at the settle of its last occurrence; then nothing more can come
                await().atMost(WAIT)
                        .until(() -> expected.keySet().stream()
                                .allMatch(id -> get(app, "/series/" + id).status() == 404));
                awaitMarker(kafka, names, out, got);
                for (Case c : cases) {
                    String id = run + c.name();
                    assertEquals(expected.get(id), delivered(got, id), id + ": (occurrence, due) in order");
                    // the catch-up cap (1,000) is far off: no occurrence skipped but the wall times a gap loses
                    bridge.awaitMeter("delay.series.skipped." + id, gapSkips(c));
                    bridge.awaitMeter(
                            "delay.series.delivered." + id, expected.get(id).size() / 2);
                }
            }
        }
    }

    @Test
    void anOutageOfFiveHourlyOccurrencesIsDeliveredAsOneOrSkipped(TestServers servers) {
        TestNames names = TestNames.unique(servers);
        String out = names.target("out");
        String one = "one-" + System.nanoTime();
        String skip = "skip-" + System.nanoTime();
        try (KafkaClient kafka = new KafkaClient(servers.kafkaBootstrap())) {
            kafka.createIntakeWithCreateTime(names.intake(), 4);
            kafka.createTopics(1, out);
            KafkaClient.Collector got = kafka.collect(out);
            // dated 5.5 h ago: occurrences 1..5 (ts + 1 h .. ts + 5 h) passed, #5 half an hour ago, #6 half an hour on
            long ts = System.currentTimeMillis() - 5 * HOUR - HOUR / 2;
            try (TestBridge bridge = bridge(names, servers).start()) {
                int app = bridge.support().getLocalPort();
                hourly(kafka, names, out, one, "one", ts);
                hourly(kafka, names, out, skip, "skip", ts);
                await().atMost(WAIT).untilAsserted(() -> {
                    pendingIs(app, one, 6, ts + 6 * HOUR);
                    pendingIs(app, skip, 6, ts + 6 * HOUR);
                });
                awaitMarker(kafka, names, out, got);
                assertEquals(List.of(5L, ts + 5 * HOUR), delivered(got, one), "one: the latest alone, 30 min late");
                assertEquals(List.of(), delivered(got, skip), "skip: the latest is past the 60 s grace");
                bridge.awaitMeter("delay.series.delivered." + one, 1);
                bridge.awaitMeter("delay.series.missed." + one, 4);
                bridge.awaitMeter("delay.series.skipped." + one, 4);
                bridge.awaitMeter("delay.series.skipped." + skip, 5);
                assertEquals(0, bridge.meter("delay.series.delivered." + skip));
            }
        }
    }

    /**
     * The delivered occurrences of the documented rules: every wall time of every day in range, mapped to instants by
     * the zone's rules alone, sorted and merged (a shifted gap match may fall on another occurrence's instant),
     * bounded by start, end and count; flattened as (number, due) pairs.
     */
    private static List<Long> expected(Case c) {
        ZoneRules rules = c.zone().getRules();
        TreeSet<Long> instants = new TreeSet<>();
        for (LocalDate d = c.day().minusDays(c.daysBefore());
                !d.isAfter(c.day().plusDays(c.daysAfter() + 5));
                d = d.plusDays(1)) {
            for (LocalTime t : c.walls()) {
                LocalDateTime wall = d.atTime(t);
                List<ZoneOffset> offsets = rules.getValidOffsets(wall);
                if (offsets.isEmpty()) {
                    if (!"skip".equals(c.gap())) {
                        instants.add(rules.getTransition(wall).getInstant().toEpochMilli());
                    }
                } else if ("twice".equals(c.overlap())) {
                    offsets.forEach(o -> instants.add(wall.toInstant(o).toEpochMilli()));
                } else {
                    instants.add(wall.atZone(c.zone())
                            .withEarlierOffsetAtOverlap()
                            .toInstant()
                            .toEpochMilli());
                }
            }
        }
        List<Long> pairs = new ArrayList<>();
        long number = 0;
        for (long at : instants) {
            if (at < c.startMillis() || at > c.endMillis() || (c.count() > 0 && number == c.count())) {
                continue;
            }
            pairs.add(++number);
            pairs.add(at);
        }
        return pairs;
    }

    /** Wall times a {@code skip} series loses to the gap within its occurrences: the daily one at 02:30. */
    private static long gapSkips(Case c) {
        return "skip".equals(c.gap()) ? 1 : 0;
    }

    private static List<LocalTime> quarters() {
        List<LocalTime> walls = new ArrayList<>();
        for (int h = 1; h <= 3; h++) {
            for (int m = 0; m < 60; m += 15) {
                walls.add(LocalTime.of(h, m));
            }
        }
        return walls;
    }

    private static void send(KafkaClient kafka, TestNames names, String out, String run, Case c) {
        String id = run + c.name();
        long start = c.startMillis();
        List<String> pairs = new ArrayList<>(List.of(
                DelayHeaders.TARGET,
                out,
                DelayHeaders.ID,
                id,
                SeriesHeaders.CRON,
                c.cron(),
                SeriesHeaders.ZONE,
                c.zone().getId(),
                DelayHeaders.UNTIL,
                Instant.ofEpochMilli(start).toString(),
                SeriesHeaders.MISSED,
                "all"));
        if (c.count() > 0) {
            pairs.addAll(List.of(SeriesHeaders.COUNT, Integer.toString(c.count())));
        } else {
            pairs.addAll(List.of(
                    SeriesHeaders.END, Instant.ofEpochMilli(c.endMillis()).toString()));
        }
        if (c.gap() != null) {
            pairs.addAll(List.of(SeriesHeaders.DST_GAP, c.gap()));
        }
        if (c.overlap() != null) {
            pairs.addAll(List.of(SeriesHeaders.DST_OVERLAP, c.overlap()));
        }
        kafka.send(names.intake(), id, c.name(), start, pairs.toArray(String[]::new));
    }

    private static void hourly(KafkaClient kafka, TestNames names, String out, String id, String missed, long ts) {
        kafka.send(
                names.intake(),
                id,
                missed,
                ts,
                DelayHeaders.TARGET,
                out,
                DelayHeaders.ID,
                id,
                SeriesHeaders.EVERY,
                "1h",
                SeriesHeaders.MISSED,
                missed);
    }

    private static void pendingIs(int app, String id, long number, long dueAt) {
        Http.Reply reply = get(app, "/series/" + id);
        assertEquals(200, reply.status(), id + ": " + reply);
        JsonNode series = reply.json();
        assertEquals(number, series.at("/pending/number").asLong(), series.toString());
        assertEquals(dueAt, series.at("/pending/dueAt").asLong(), series.toString());
    }

    /** (occurrence, due) pairs of series {@code id}, in delivery order. */
    private static List<Long> delivered(KafkaClient.Collector got, String id) {
        List<Long> pairs = new ArrayList<>();
        for (KafkaClient.Received r : got.matching(r -> id.equals(r.header(DelayHeaders.ID)))) {
            pairs.add(Long.parseLong(r.header(DelayHeaders.OCCURRENCE)));
            pairs.add(Long.parseLong(r.header(DelayHeaders.DUE_AT)));
        }
        return pairs;
    }

    /** A one-shot record due now on the one partition of {@code out}: once read, so is all that went before it. */
    private static void awaitMarker(KafkaClient kafka, TestNames names, String out, KafkaClient.Collector got) {
        String marker = "marker-" + System.nanoTime();
        kafka.send(names.intake(), marker, "m", null, DelayHeaders.TARGET, out, DelayHeaders.DELAY_MS, "0");
        await().atMost(WAIT)
                .until(() -> !got.matching(r -> marker.equals(r.key())).isEmpty());
    }

    private static TestBridge bridge(TestNames names, TestServers servers) {
        return new TestBridge(
                names, servers.kafkaBootstrap(), servers.redisUri(), TestBridge.set("api.token", Http.TOKEN));
    }
}

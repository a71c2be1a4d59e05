package io.delaybridge.schemas;

import static io.delaybridge.schemas.SeriesPump.ms;
import static io.delaybridge.schemas.SeriesPump.series;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The counting catch-up (a cron series far behind {@code now}) gives exactly what stepping through every missed
 * occurrence gives: the same occurrences due, numbers, next occurrence and skipped count, across DST changes of
 * several zones, every gap/overlap/missed choice, ends and counts.
 */
class SeriesCatchUpTest {

    private static final String[] EXPRESSIONS = {
        "*/7 * * * * *", "*/15 * * * *", "30 2 * * *", "0 1 * * *", "30 1 * * *", "0 */2 * * *", "15 2 * * *",
        "45 1 * * *", "0 0 * * *", "0 9 1 * *", "0 9 31 * *", "0,30 0-3 * * 0", "* 2 * * *", "0 2,3 * * *"
    };
    private static final String[] ZONES = {
        "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Africa/Cairo", "America/Santiago", "UTC"
    };
    private static final long DAY = 86_400_000L;

    private final SeriesPlanner counting = new SeriesPlanner(SeriesPlanner.DEFAULT_SKIP_GRACE_MILLIS);
    private final SeriesPlanner stepping =
            new SeriesPlanner(SeriesPlanner.DEFAULT_SKIP_GRACE_MILLIS, Integer.MAX_VALUE);

    @Test
    void countingAgreesWithSteppingOnRandomOutages() {
        Random random = new Random(20261126L);
        long yearStart = ms("2026-01-01T00:00Z");
        int countedCases = 0;
        for (int i = 0; i < 400; i++) {
            String expression = EXPRESSIONS[random.nextInt(EXPRESSIONS.length)];
            long start = yearStart + (long) (random.nextDouble() * 360 * DAY);
            long span = expression.startsWith("*/7") || expression.startsWith("* ") ? 3 * DAY : 400 * DAY;
            long now = start + (long) (random.nextDouble() * span);
            List<String> h = new ArrayList<>(List.of(
                    "delay-id",
                    "s",
                    "delay-cron",
                    expression,
                    "delay-zone",
                    ZONES[random.nextInt(ZONES.length)],
                    "delay-dst-gap",
                    random.nextBoolean() ? "shift" : "skip",
                    "delay-dst-overlap",
                    random.nextBoolean() ? "once" : "twice",
                    "delay-missed",
                    List.of("one", "all", "skip").get(random.nextInt(3))));
            if (random.nextInt(4) == 0) {
                h.addAll(List.of("delay-count", String.valueOf(1 + random.nextInt(5000))));
            }
            if (random.nextInt(4) == 0) {
                h.addAll(List.of("delay-end", String.valueOf(start + 64 * DAY + random.nextInt(1000))));
            }
            Series s = series(start, h.toArray(new String[0]));
            SeriesPlanner.Plan expected = stepping.start(s, now);
            assertEquals(expected, counting.start(s, now), h + " from " + start + " to " + now);
            if (expected.skipped() > SeriesPlanner.STEPS_BEFORE_COUNTING) {
                countedCases++;
            }
        }
        assertTrue(countedCases > 100, "the counting path ran in " + countedCases + " cases");
    }

    @Test
    void aYearLongOutageOfAnEverySecondCronSeriesIsCheap() {
        Series s = series(
                ms("2026-01-01T00:00Z"),
                "delay-id",
                "s",
                "delay-cron",
                "* * * * * *",
                "delay-zone",
                "Europe/Berlin",
                "delay-missed",
                "all");
        SeriesPlanner.Plan plan = counting.start(s, ms("2027-01-01T00:00Z"));
        // every second of 2026 and 2027-01-01T00:00:00, less the repeated hour of 2026-10-25 (overlap: once)
        long seconds = 365 * 86_400L + 1 - 3600;
        assertEquals(SeriesPlanner.MAX_CATCH_UP, plan.due().size());
        assertEquals(seconds - SeriesPlanner.MAX_CATCH_UP, plan.skipped());
        assertEquals(
                new SeriesPlanner.Occurrence(seconds, ms("2027-01-01T00:00Z")),
                plan.due().get(999));
        assertEquals(
                new SeriesPlanner.Occurrence(seconds - 999, ms("2026-12-31T23:43:21Z")),
                plan.due().get(0));
    }
}

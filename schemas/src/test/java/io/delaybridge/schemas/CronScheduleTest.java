package io.delaybridge.schemas;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CronScheduleTest {

    static List<LocalDateTime> next(String expression, String from, int n) {
        CronSchedule cron = CronSchedule.parse(expression);
        List<LocalDateTime> out = new ArrayList<>();
        LocalDateTime t = cron.nextOrSame(LocalDateTime.parse(from));
        for (int i = 0; i < n; i++) {
            out.add(t);
            t = cron.nextAfter(t);
        }
        return out;
    }

    static List<LocalDateTime> at(String... times) {
        return java.util.Arrays.stream(times).map(LocalDateTime::parse).toList();
    }

    @Test
    void bothDayFieldsRestrictedMeansEitherAsInPosixCron() {
        // 2026-06-01 is a Monday: the 1st, the 15th and every Friday
        assertEquals(
                at("2026-06-01T04:30", "2026-06-05T04:30", "2026-06-12T04:30", "2026-06-15T04:30", "2026-06-19T04:30"),
                next("30 4 1,15 * 5", "2026-06-01T00:00", 5));
    }

    @Test
    void oneDayFieldRestrictedMeansThatOne() {
        assertEquals(
                at("2026-06-05T09:00", "2026-06-08T09:00", "2026-06-09T09:00"),
                next("0 9 * * MON-FRI", "2026-06-05T08:00", 3));
        assertEquals(at("2026-06-07T09:00", "2026-06-14T09:00"), next("0 9 ? * 7", "2026-06-01T00:00", 2));
        assertEquals(next("0 9 * * 0", "2026-06-01T00:00", 3), next("0 9 * * sun", "2026-06-01T00:00", 3));
        assertEquals(at("2026-06-13T00:00", "2026-06-15T00:00"), next("0 0 13-15/2 jun-Jul *", "2026-06-01T00:00", 2));
    }

    @Test
    void stepsRangesListsAndSeconds() {
        assertEquals(
                at("2026-01-01T00:01", "2026-01-01T00:31", "2026-01-01T01:01"),
                next("1/30 * * * *", "2026-01-01T00:00", 3));
        assertEquals(
                at("2026-01-01T08:00:15", "2026-01-01T08:00:45", "2026-01-01T08:05:15"),
                next("15,45 0,5 8 * * *", "2026-01-01T00:00", 3));
        assertEquals(
                at("2026-12-31T23:59:59", "2027-01-01T00:00:00"),
                next("* * * * * *", "2026-12-31T23:59:58.001", 2),
                "a fraction of a second rounds up");
    }

    @Test
    void nextOrSameIncludesAndNextAfterExcludes() {
        CronSchedule cron = CronSchedule.parse("0 9 * * *");
        LocalDateTime nine = LocalDateTime.parse("2026-06-01T09:00");
        assertEquals(nine, cron.nextOrSame(nine));
        assertEquals(nine.plusDays(1), cron.nextAfter(nine));
        assertFalse(cron.hasSeconds());
        assertTrue(CronSchedule.parse("30 0 9 * * *").hasSeconds());
        assertEquals("0 9 * * *", CronSchedule.parse("  0 9 * * *\t").expression());
    }
}

package io.delaybridge.checker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class RecordPlanTest {

    @Test
    void fivePercentAtOnceFivePercentAtTheSharedInstantTheRestWithinTheMaximum() {
        RecordPlan plan = new RecordPlan(100_000, 42, 20_000, 1_000_000, 3);
        int zero = 0;
        int shared = 0;
        for (int n = 0; n < plan.records(); n++) {
            long d = plan.delayMillis(n);
            if (d == RecordPlan.AT_SHARED_INSTANT) {
                shared++;
            } else {
                assertTrue(d >= 0 && d <= 20_000, "delay " + d);
                zero += d == 0 ? 1 : 0;
            }
        }
        assertEquals(5_000, zero, 300);
        assertEquals(5_000, shared, 300);
    }

    @Test
    void sameSeedSamePlanAndDueTimesFollowTheIntakeTimestamp() {
        RecordPlan a = new RecordPlan(1000, 9, 5000, 2_000_000, 3);
        RecordPlan b = new RecordPlan(1000, 9, 5000, 2_000_000, 3);
        for (int n = 0; n < 1000; n++) {
            assertEquals(a.delayMillis(n), b.delayMillis(n));
            long due = a.dueAt(n, 1_000_000);
            assertEquals(
                    a.delayMillis(n) == RecordPlan.AT_SHARED_INSTANT ? 2_000_000 : 1_000_000 + a.delayMillis(n), due);
        }
        assertEquals(2, a.target(5));
    }
}

package io.delaybridge.checker;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CampaignReportTest {

    private static final RedisLeftovers EMPTY = new RedisLeftovers(0, 0, 0, 0);

    private static CampaignReport report(
            long lost, long duplicates, long early, Map<Fault, Integer> faults, RedisLeftovers leftovers) {
        return new CampaignReport(
                "--records 10",
                10,
                10,
                10,
                0,
                lost,
                duplicates,
                duplicates > 0 ? 1 : 0,
                1500,
                early,
                List.of(),
                0,
                0,
                List.of(),
                new long[] {1, 2, 3, 4},
                List.of("kill         x1: 12 late > 1 s, max 9.0 s"),
                faults,
                List.of(),
                List.of(),
                leftovers,
                leftovers,
                Map.of(),
                CampaignOptions.RedisTopology.STANDALONE,
                List.of(),
                new DeliveryPaths.Totals(1200, 8800, 3),
                1.0);
    }

    @Test
    void passesOnlyWhenEveryGuaranteeHeld() {
        assertTrue(report(0, 0, 0, Map.of(), EMPTY).passed());
        assertFalse(report(1, 0, 0, Map.of(), EMPTY).passed());
        assertFalse(report(0, 0, 1, Map.of(), EMPTY).passed());
        assertFalse(report(0, 0, 0, Map.of(), new RedisLeftovers(0, 1, 1, 0)).passed());
    }

    @Test
    void duplicatesAreAllowedOnlyInsideCrashWindows() {
        assertFalse(report(0, 1, 0, Map.of(), EMPTY).passed());
        assertFalse(report(0, 1, 0, Map.of(Fault.REBALANCE, 2), EMPTY).passed());
        assertTrue(report(0, 1, 0, Map.of(Fault.KILL, 1), EMPTY).passed());
        assertFalse(report(0, 1501, 0, Map.of(Fault.KILL, 1), EMPTY).passed());
        assertTrue(report(0, 0, 0, Map.of(), EMPTY).render().contains("RESULT: PASS"));
        assertTrue(report(0, 0, 0, Map.of(), EMPTY)
                .render()
                .contains("delivery paths: express-path records: 1,200 (lower bound), parked: 8,800\n"));
        assertTrue(report(0, 0, 0, Map.of(), EMPTY)
                .render()
                .contains("\n                kill         x1: 12 late > 1 s, max 9.0 s\n"));
    }

    @Test
    void percentilesAreNearestRank() {
        long[] values = new long[1000];
        for (int i = 0; i < 1000; i++) {
            values[i] = 1000 - i;
        }
        assertArrayEquals(new long[] {500, 990, 999, 1000}, CampaignReport.percentiles(values));
        assertEquals(-1, CampaignReport.percentiles(new long[0])[0]);
    }
}

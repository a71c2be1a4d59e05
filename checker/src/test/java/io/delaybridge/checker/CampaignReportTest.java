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
        return report(lost, duplicates, early, faults, leftovers, FarLoss.NONE);
    }

    private static CampaignReport report(
            long lost,
            long duplicates,
            long early,
            Map<Fault, Integer> faults,
            RedisLeftovers leftovers,
            FarLoss farLoss) {
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
                farLoss,
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

    private static FarLoss farLoss(int reported, int silentBelow, int silentElsewhere) {
        java.util.function.IntFunction<List<FarLossCheck.Lost>> lost = k -> java.util.stream.IntStream.range(0, k)
                .mapToObj(i -> new FarLossCheck.Lost(i, 3, 100 + i))
                .toList();
        return new FarLoss(
                new FarLossCheck.Result(lost.apply(reported), lost.apply(silentBelow), lost.apply(silentElsewhere)),
                List.of("deleteRecords intake partition 3 offsets 0-199"),
                4,
                0);
    }

    @Test
    void recordsDeleteFarLostPassOnlyWhenABridgeReportedThem() {
        Map<Fault, Integer> deleteFar = Map.of(Fault.DELETE_FAR, 1);
        CampaignReport reported = report(3, 0, 0, deleteFar, EMPTY, farLoss(3, 0, 0));
        assertTrue(reported.passed(), reported.render());
        assertEquals(3, reported.reportedLost());
        assertEquals(0, reported.silentLost());
        assertTrue(reported.render().contains("reported lost (delete-far): 3"), reported.render());
        assertTrue(reported.render().contains("silent lost:    0"), reported.render());

        CampaignReport unreported = report(3, 0, 0, deleteFar, EMPTY, farLoss(2, 1, 0));
        assertFalse(unreported.passed());
        assertEquals(1, unreported.silentLost());
        assertTrue(
                unreported.violations().get(0).contains("no bridge reported them lost"),
                unreported.violations().toString());
        assertFalse(report(3, 0, 0, deleteFar, EMPTY, farLoss(2, 0, 1)).passed());
        assertTrue(report(3, 0, 0, deleteFar, EMPTY, farLoss(2, 0, 1))
                .render()
                .contains("not below any delete-far point"));
        // a deletion alone ends no bridge: no duplicate allowed
        assertFalse(report(0, 1, 0, deleteFar, EMPTY, FarLoss.NONE).passed());
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

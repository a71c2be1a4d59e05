package io.delaybridge.checker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * The short form of the fault campaign, in the default build: a few thousand records through two bridges (their
 * clocks an hour ahead and an hour behind) while one fault of every kind hits the real processes. The full campaign
 * is {@code ./campaign.sh --records 1000000 --faults full} (docs/reliability.md).
 */
@Execution(ExecutionMode.CONCURRENT) // beside the other classes; its own tests one after the other
class FaultCampaignIT {

    @TempDir
    Path dir;

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    void nothingLostNothingEarlyUnderEveryKindOfFault() throws Exception {
        CampaignOptions options = CampaignOptions.parse(new String[] {
                    "--records",
                    "9000",
                    "--rate",
                    "150",
                    "--max-delay",
                    "8s",
                    "--partitions",
                    "6",
                    "--lease",
                    "4s",
                    "--fault-gap",
                    "1s",
                    "--rebalance-hold",
                    "3s",
                    "--faults",
                    "crash-store=1,crash-claim=1,crash-send=1,kill=1,redis=1,broker=1,rebalance=1,zombie=1",
                    "--clock-shift",
                    "+1h,-1h",
                    "--clock-shift-mode",
                    "java"
                })
                .withWorkDir(dir);

        CampaignReport report = new Campaign(options).run();
        System.out.print(report.render());

        assertEquals(List.of(), report.violations(), report.render());
        assertEquals(0, report.lost());
        assertEquals(0, report.early());
        assertTrue(report.acknowledged() > 8_500, "the broker acknowledged " + report.acknowledged());
        assertTrue(
                report.leftoversAfterStop().empty(), report.leftoversAfterStop().toString());
        assertEquals(options.faults(), report.faults(), "every planned fault ran");
        for (CrashPoint point : CrashPoint.values()) {
            assertTrue(
                    report.faultLog().stream().anyMatch(l -> l.contains("halted at " + point.settingName())),
                    "a bridge halted at " + point.settingName() + ": " + report.faultLog());
        }
    }

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    void gracefulRebalancesDeliverNothingTwice() throws Exception {
        CampaignOptions options = CampaignOptions.parse(new String[] {
                    "--records",
                    "5000",
                    "--rate",
                    "250",
                    "--max-delay",
                    "5s",
                    "--partitions",
                    "6",
                    "--fault-gap",
                    "1s",
                    "--rebalance-hold",
                    "4s",
                    "--faults",
                    "rebalance=2"
                })
                .withWorkDir(dir);

        CampaignReport report = new Campaign(options).run();
        System.out.print(report.render());

        assertEquals(List.of(), report.violations(), report.render());
        assertEquals(0, report.duplicates(), "graceful hand-overs drain in-flight sends first");
        assertEquals(0, report.lost());
        assertEquals(2, report.faults().get(Fault.REBALANCE));
    }
}

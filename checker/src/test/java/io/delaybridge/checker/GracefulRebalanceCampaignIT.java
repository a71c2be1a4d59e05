package io.delaybridge.checker;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * The short fault campaign's graceful form, in the default build: a few thousand records through bridges that join
 * and leave the group cleanly (SIGTERM), where not a single record may arrive twice. A class of its own, so that it
 * runs beside the campaign with faults ({@link FaultCampaignIT}) instead of after it.
 */
@Execution(ExecutionMode.CONCURRENT) // beside the other classes
class GracefulRebalanceCampaignIT {

    @TempDir
    Path dir;

    @Test
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

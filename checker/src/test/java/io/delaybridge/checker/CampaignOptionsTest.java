package io.delaybridge.checker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class CampaignOptionsTest {

    @Test
    void fullMeansTheFiguresOfTheReliabilityPage() {
        CampaignOptions o = CampaignOptions.parse(new String[] {"--records", "1000000", "--faults", "full"});
        assertEquals(1_000_000, o.records());
        int bridgeKills = o.faults().entrySet().stream()
                .filter(e -> e.getKey().killsABridge() && e.getKey() != Fault.ZOMBIE)
                .mapToInt(e -> e.getValue())
                .sum();
        assertEquals(20, bridgeKills);
        assertEquals(5, o.faults().get(Fault.REDIS));
        assertEquals(3, o.faults().get(Fault.BROKER));
        assertEquals(10, o.faults().get(Fault.REBALANCE));
        assertEquals(5, o.faults().get(Fault.ZOMBIE));
    }

    @Test
    void parsesEveryOptionAndPrintsThemBack() {
        CampaignOptions o = CampaignOptions.parse(new String[] {
            "--seed",
            "7",
            "--lease",
            "5s",
            "--faults",
            "kill=2,zombie",
            "--clock-shift",
            "+1h,-1h",
            "--clock-shift-mode",
            "java",
            "--max-delay",
            "2m",
            "--exactly-once",
            "on",
            "--hot-window",
            "2s",
            "--brokers",
            "3"
        });
        assertTrue(o.exactlyOnce());
        assertFalse(CampaignOptions.defaults().exactlyOnce());
        assertEquals(7, o.seed());
        assertEquals(Duration.ofSeconds(5), o.lease());
        assertEquals(2, o.faults().get(Fault.KILL));
        assertEquals(1, o.faults().get(Fault.ZOMBIE));
        assertEquals(List.of("+1h", "-1h"), o.clockShifts());
        assertEquals(Duration.ofMinutes(2), o.maxDelay());
        assertEquals("2s", o.hotWindow());
        assertEquals(3, o.brokers());
        assertEquals(1, CampaignOptions.defaults().brokers());
        assertEquals(o, CampaignOptions.parse(o.commandLine().split(" ")).withWorkDir(o.workDir()));
    }

    @Test
    void refusesUnknownFaultsAndOptions() {
        assertThrows(
                IllegalArgumentException.class, () -> CampaignOptions.parse(new String[] {"--faults", "meteor=1"}));
        assertThrows(IllegalArgumentException.class, () -> CampaignOptions.parse(new String[] {"--recordz", "1"}));
        assertThrows(
                IllegalArgumentException.class, () -> CampaignOptions.parse(new String[] {"--exactly-once", "maybe"}));
        IllegalArgumentException none = assertThrows(
                IllegalArgumentException.class, () -> CampaignOptions.parse(new String[] {"--brokers", "0"}));
        assertTrue(none.getMessage().contains("--brokers 0"), none.getMessage());
    }
}

package io.delaybridge.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class BenchOptionsTest {

    @Test
    void theDocumentedCommandLinesParse() {
        BenchOptions steady =
                BenchOptions.parse("--scenario", "steady", "--steady-rate", "5000", "--steady-seconds", "120");
        assertEquals(List.of("steady"), steady.scenarios);
        assertEquals(5000, steady.steadyRate);
        assertEquals(120, steady.steadySeconds);
        assertEquals(0, steady.steadySecondRate);

        BenchOptions burst = BenchOptions.parse(
                "--scenario",
                "throughput,burst",
                "--records",
                "2000000",
                "--burst",
                "1000000",
                "--burst-intake-rate",
                "30000");
        assertEquals(List.of("throughput", "parked-drain"), burst.scenarios);
        assertEquals(1_000_000, burst.parkedRecords);
        assertEquals(30_000, burst.parkedIntakeRate);

        BenchOptions cluster = BenchOptions.parse("--redis", "single,cluster", "--scenario", "steady,throughput");
        assertTrue(cluster.cluster);
        assertEquals(List.of("throughput", "steady"), cluster.scenarios, "the run's order, not the command line's");
        assertEquals(List.of("steady"), cluster.withScenarios(List.of("steady", "layouts")).scenarios);
        assertEquals(BenchOptions.SCENARIOS, BenchOptions.parse().scenarios);
    }

    @Test
    void aParkedDrainIsColdUnlessAWarmUpIsAsked() {
        assertEquals(0, BenchOptions.parse("--scenario", "parked-drain").parkedWarmupRecords);
        assertEquals(
                20_000,
                BenchOptions.parse("--scenario", "parked-drain", "--parked-warmup-records", "20000")
                        .parkedWarmupRecords);
        assertMessage("--parked-warmup-records -1", "--parked-warmup-records", "-1");
    }

    @Test
    void delaysComeInSecondsOrInMilliseconds() {
        BenchOptions seconds = BenchOptions.parse("--min-delay-s", "1", "--max-delay-s", "20");
        assertEquals(1_000, seconds.minDelayMillis);
        assertEquals(20_000, seconds.maxDelayMillis);
        assertEquals("1-20 s", seconds.delays());

        BenchOptions millis = BenchOptions.parse("--min-delay-ms", "0", "--max-delay-ms", "1000", "--max-delay-s", "9");
        assertEquals(0, millis.minDelayMillis);
        assertEquals(1_000, millis.maxDelayMillis, "the ms option wins");
        assertEquals("0-1 s", millis.delays());
        assertEquals(
                "0-250 ms",
                BenchOptions.parse("--min-delay-ms", "0", "--max-delay-ms", "250")
                        .delays());
        assertMessage("--min-delay-ms 900", "--min-delay-ms", "900", "--max-delay-ms", "500");
    }

    @Test
    void thePeerCommandGetsTheRunsTopics() {
        BenchOptions none = BenchOptions.parse("--scenario", "catch-up");
        assertEquals(List.of(), none.peerCommand, "no peer unless asked for");
        assertEquals("publish-after-ts", none.peerHeader);

        BenchOptions peer = BenchOptions.parse(
                "--peer-command",
                " /tmp/peer/run.sh  {bootstrap} {intake} " + "--to={target} {group} ",
                "--peer-header",
                "after-ts");
        assertEquals(
                List.of("/tmp/peer/run.sh", "localhost:9092", "in-1", "--to=out-1", "g1"),
                peer.peerCommand("localhost:9092", "in-1", "out-1", "g1"));
        assertEquals("after-ts", peer.peerHeader);

        assertMessage(
                "--peer-command java -jar peer.jar {intake}: expected a command that names the topics",
                "--peer-command",
                "java -jar peer.jar {intake}");
        assertMessage("--peer-header  : expected a header name", "--peer-header", " ");
    }

    @Test
    void theFarTiersOptionsHaveDefaultsAndAreChecked() {
        BenchOptions defaults = BenchOptions.parse("--scenario", "far-thaw");
        assertEquals(List.of("far-thaw"), defaults.scenarios);
        assertEquals(List.of("rate", "lateness"), defaults.far.thawParts);
        assertEquals(1_000_000, defaults.far.thawRecords);
        assertEquals(1, defaults.far.thawHours);
        assertEquals(1_000_000, defaults.far.pending);
        assertEquals(4, defaults.far.pendingHours);
        assertEquals(10, defaults.far.thawAtSeconds);
        assertEquals(1_000_000, defaults.far.records, "far-layouts' own, parsed with them");

        BenchOptions big = BenchOptions.parse(
                "--scenario", "far-thaw", "--far-thaw-parts", "lateness", "--far-pending", "10,000,000");
        assertEquals(List.of("lateness"), big.far.thawParts);
        assertEquals(10_000_000, big.far.pending);

        assertMessage("--far-thaw-parts speed: expected rate, lateness", "--far-thaw-parts", "speed");
        assertMessage("--far-pending 0", "--far-pending", "0");
        assertMessage("--far-thaw-at-s -1", "--far-thaw-at-s", "-1");
        String help = BenchOptions.help();
        for (String option : List.of("--far-thaw-records", "--far-pending-hours", "--far-thaw-at-s", "--far-records")) {
            assertTrue(help.contains(option), option);
        }
    }

    @Test
    void aBadOptionIsNamed() {
        assertMessage("unknown option --record", "--record", "5");
        assertMessage("--steady-rate abc", "--steady-rate", "abc");
        assertMessage("--steady-rate 0", "--steady-rate", "0");
        assertMessage("\"foo\"", "--scenario", "steady,foo");
        assertMessage("--redis cluster", "--redis", "cluster");
        assertMessage("--min-delay-s 9", "--min-delay-s", "9", "--max-delay-s", "5");
        assertMessage("--rates 5000,x", "--rates", "5000,x");
        assertMessage("--records needs a value", "--records");
    }

    @Test
    void helpListsEveryOptionWithItsDefault() {
        String help = BenchOptions.help();
        for (String option : List.of(
                "--scenario", "--catch-up-records", "--parked-records", "--steady-second-rate", "--bridge-jar")) {
            assertTrue(help.contains(option), option);
        }
        assertTrue(
                help.contains("--steady-rate          steady (and backlog): records due a second (default: 5000)"),
                help);
        assertTrue(BenchOptions.wantsHelp("--scenario", "steady", "--help"));
        assertFalse(BenchOptions.wantsHelp("--scenario", "steady"));
    }

    private static void assertMessage(String expected, String... args) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse(args));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }
}

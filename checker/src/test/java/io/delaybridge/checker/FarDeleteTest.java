package io.delaybridge.checker;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The pure parts of delete-far: where it deletes, how the bridges' ERROR lines read, and how lost records sort. */
class FarDeleteTest {

    private static final long NOW = 1_000_000;
    private static final long HORIZON = NOW + 4_000;

    private static List<DeletionPoint.Acked> acked(long from, long to, long dueAt) {
        List<DeletionPoint.Acked> records = new ArrayList<>();
        for (long offset = from; offset < to; offset++) {
            records.add(new DeletionPoint.Acked(offset, dueAt));
        }
        return records;
    }

    @Test
    void deletesUpToTheCommittedOffsetAndNoFurtherThanEveryRecordIsAcknowledged() {
        List<DeletionPoint.Acked> records = acked(0, 100, HORIZON + 1);
        DeletionPoint.Candidate committedFirst =
                DeletionPoint.candidate(2, 0, 60, records, new long[] {10, 59, 60, 70}, HORIZON);
        assertEquals(60, committedFirst.deleteBefore());
        assertEquals(60, committedFirst.farInPlan());
        assertEquals(2, committedFirst.farInIndex(), "only the far entries below the point: 10 and 59");

        List<DeletionPoint.Acked> gap = new ArrayList<>(acked(0, 40, HORIZON + 1));
        gap.addAll(acked(41, 100, HORIZON + 1)); // offset 40 not acknowledged yet
        assertEquals(
                40, DeletionPoint.candidate(2, 0, 90, gap, new long[0], HORIZON).deleteBefore());

        // after an earlier deletion the point counts from the log start
        DeletionPoint.Candidate later = DeletionPoint.candidate(2, 50, 90, records, new long[] {45, 55}, HORIZON);
        assertEquals(90, later.deleteBefore());
        assertEquals(40, later.farInPlan());
        assertEquals(1, later.farInIndex());
    }

    @Test
    void onlyRecordsDueBeyondTheHorizonCountAsFar() {
        List<DeletionPoint.Acked> records = new ArrayList<>(acked(0, 30, HORIZON));
        records.addAll(acked(30, 40, HORIZON + 1));
        assertEquals(
                10,
                DeletionPoint.candidate(0, 0, 40, records, new long[0], HORIZON).farInPlan());
        assertEquals(
                0,
                DeletionPoint.candidate(0, 0, 30, records, new long[0], HORIZON).farInPlan());
    }

    @Test
    void choosesThePartitionWithTheMostFarEntriesBelowItsPoint() {
        DeletionPoint.Candidate few = new DeletionPoint.Candidate(0, 0, 100, 50, 3);
        DeletionPoint.Candidate most = new DeletionPoint.Candidate(1, 0, 80, 10, 9);
        DeletionPoint.Candidate nothingFar = new DeletionPoint.Candidate(2, 0, 100, 0, 20);
        DeletionPoint.Candidate nothingToDelete = new DeletionPoint.Candidate(3, 70, 70, 5, 30);
        assertEquals(Optional.of(most), DeletionPoint.choose(List.of(few, most, nothingFar, nothingToDelete)));
        assertEquals(Optional.empty(), DeletionPoint.choose(List.of(nothingFar, nothingToDelete)));
        assertEquals(
                Optional.of(few),
                DeletionPoint.choose(List.of(few, new DeletionPoint.Candidate(1, 0, 80, 10, 0))),
                "with no far entry anywhere, the most far records of the plan");
    }

    @Test
    void readsTheFarIndexEntries() {
        ByteBuffer entries = ByteBuffer.allocate(36);
        entries.putShort((short) 3).putShort((short) 0).putInt(123).putInt(4_000);
        entries.putShort((short) 0xFFFF).putShort((short) 1).putInt(0xFFFF_FFFF).putInt(0);
        entries.putShort((short) 3).putShort((short) 0).putInt(124).putInt(0xFFFF_FFFF); // thawed
        Map<Integer, List<Long>> offsets = new HashMap<>();
        FarDeleter.decode(entries.array(), offsets);
        assertEquals(List.of(123L), offsets.get(3), "an entry marked thawed is not far any more");
        assertEquals(List.of((1L << 32) | 0xFFFF_FFFFL), offsets.get(0xFFFF));
    }

    /** A line as the bridge's thaw writes it (ThawMetrics#lost), shortened. */
    private static final String LINE = "ERROR [2026-11-25 16:41:07,123] io.delaybridge.bridge.thaw.ThawMetrics: 7 far"
            + " records of shard 3 (due in the hour from 2026-11-25T16:00:00Z) are gone from intake partition 3,"
            + " offsets 100-104, 107, 110: deleted by retention or an operator before they were thawed; they will"
            + " not be delivered";

    /** Copied from a bridge's log in the campaign {@code --records 20000 --rate 500 --hot-window 2s --faults
     * delete-far=1,kill=1}. */
    private static final String CAMPAIGN_LINE =
            "ERROR [2026-11-25 16:05:58,218] io.delaybridge.bridge.thaw.ThawMetrics:"
                    + " 359 far records of shard 6 (due in the hour from 2026-11-25T16:00:00Z) are gone from intake partition"
                    + " 6, offsets 1-17, 19, 21-22, 24-44, 46-53, 55, 57, 59, 61-66, 69-72, 74, 76, 78-79, 82-85, 87-89, 92-93,"
                    + " 96, 99, 101-105, 107-113, and 270 more offsets: deleted by retention or an operator before they were"
                    + " thawed; they will not be delivered";

    @Test
    void readsALineTheBridgeWrote() {
        FarLossLog.Report report = FarLossLog.parse(CAMPAIGN_LINE).orElseThrow();
        assertEquals(6, report.partition());
        assertEquals(20, report.ranges().size(), "the thaw names 20 ranges at most");
        assertEquals(270, report.more());
        assertEquals(113, report.lastNamed());
        long named = report.ranges().stream().mapToLong(r -> r[1] - r[0] + 1).sum();
        assertEquals(report.count(), named + report.more(), "named and counted make the line's count");
    }

    @Test
    void parsesTheThawsErrorLines() {
        FarLossLog.Report report = FarLossLog.parse(LINE).orElseThrow();
        assertEquals(3, report.shard());
        assertEquals(3, report.partition());
        assertEquals(7, report.count());
        assertEquals(3, report.ranges().size());
        assertArrayEquals(new long[] {100, 104}, report.ranges().get(0));
        assertArrayEquals(new long[] {107, 107}, report.ranges().get(1));
        assertArrayEquals(new long[] {110, 110}, report.ranges().get(2));
        assertEquals(0, report.more());

        FarLossLog.Report counted = FarLossLog.parse(
                        LINE.replace("7 far", "60 far").replace("107, 110:", "107, 110, and 53 more offsets:"))
                .orElseThrow();
        assertEquals(53, counted.more());
        assertEquals(110, counted.lastNamed());
        assertEquals(
                1,
                FarLossLog.parse(LINE.replace("107, 110:", "107, 110, and 1 more offset:"))
                        .orElseThrow()
                        .more());

        assertEquals(Optional.empty(), FarLossLog.parse(LINE.replace("ERROR", "INFO")));
        assertEquals(Optional.empty(), FarLossLog.parse("ERROR something else went wrong"));
    }

    @Test
    void readsEveryBridgeLogInTheDirectory(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        java.nio.file.Files.writeString(
                dir.resolve("bridge-1.log"), "INFO  [x] started\n" + CAMPAIGN_LINE + "\nWARN  [x] later\n");
        java.nio.file.Files.writeString(dir.resolve("bridge-2.log"), LINE + "\n");
        java.nio.file.Files.writeString(dir.resolve("notes.txt"), LINE + "\n");
        List<FarLossLog.Report> reports = FarLossLog.read(dir);
        assertEquals(
                List.of(6, 3),
                reports.stream().map(FarLossLog.Report::partition).toList());
        assertEquals(List.of(), FarLossLog.read(dir.resolve("absent")));
    }

    private static FarLossCheck.Lost lost(int n, int partition, long offset) {
        return new FarLossCheck.Lost(n, partition, offset);
    }

    @Test
    void aLostRecordIsReportedOnlyBelowADeletionPointAndNamedByABridge() {
        FarLossLog.Report report = FarLossLog.parse(LINE).orElseThrow();
        FarLossCheck.Result result = FarLossCheck.classify(
                List.of(
                        lost(1, 3, 101), // named
                        lost(2, 3, 110), // named
                        lost(3, 3, 105), // deleted, not named: silent
                        lost(4, 3, 500), // above the deletion point: silent even if a line named it
                        lost(5, 4, 101)), // another partition, nothing deleted there
                Map.of(3, 400L),
                List.of(
                        report,
                        FarLossLog.parse(LINE.replace("107, 110", "500")).orElseThrow()));
        assertEquals(
                List.of(1, 2),
                result.reported().stream().map(FarLossCheck.Lost::record).toList());
        assertEquals(
                List.of(3),
                result.silentBelowDeletion().stream()
                        .map(FarLossCheck.Lost::record)
                        .toList());
        assertEquals(
                List.of(4, 5),
                result.silentElsewhere().stream().map(FarLossCheck.Lost::record).toList());
        assertEquals(3, result.silent());

        FarLossCheck.Result withoutDeletion =
                FarLossCheck.classify(List.of(lost(1, 3, 101)), Map.of(), List.of(report));
        assertEquals(1, withoutDeletion.silentElsewhere().size(), "no delete-far: every lost record is silent");
    }

    @Test
    void offsetsALineOnlyCountsCoverAsManyLostRecordsAboveItsLastNamedOne() {
        FarLossLog.Report counted = FarLossLog.parse(LINE.replace("107, 110:", "107, 110, and 2 more offsets:"))
                .orElseThrow();
        FarLossCheck.Result result = FarLossCheck.classify(
                List.of(lost(1, 3, 99), lost(2, 3, 120), lost(3, 3, 130), lost(4, 3, 140)),
                Map.of(3, 1000L),
                List.of(counted));
        assertEquals(
                List.of(2, 3),
                result.reported().stream().map(FarLossCheck.Lost::record).toList());
        assertEquals(
                List.of(1, 4),
                result.silentBelowDeletion().stream()
                        .map(FarLossCheck.Lost::record)
                        .toList(),
                "99 lies below the named ranges, 140 is one more than the line counts");
    }

    @Test
    void deleteFarNeedsAHotWindow() {
        IllegalArgumentException refused = assertThrows(
                IllegalArgumentException.class,
                () -> CampaignOptions.parse(new String[] {"--faults", "delete-far=1,kill=1"}));
        assertTrue(refused.getMessage().contains("--hot-window"), refused.getMessage());
        assertThrows(
                IllegalArgumentException.class,
                () -> CampaignOptions.parse(new String[] {"--hot-window", "off", "--faults", "delete-far=1"}));
        CampaignOptions o = CampaignOptions.parse(new String[] {"--faults", "delete-far=2", "--hot-window", "2s"});
        assertEquals(2, o.faults().get(Fault.DELETE_FAR));
        assertEquals(2_000, o.hotWindowMillis());
        assertTrue(Fault.DELETE_FAR.needsTraffic());
        assertEquals(
                null,
                CampaignOptions.parse(new String[] {"--faults", "full"})
                        .faults()
                        .get(Fault.DELETE_FAR));
    }
}

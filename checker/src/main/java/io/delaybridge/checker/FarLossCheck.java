package io.delaybridge.checker;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Which lost records (acknowledged, never arrived) the bridges reported: a lost record whose intake offset lies below
 * a point {@code delete-far} deleted up to, in that partition, and which a thaw's ERROR line names ({@link FarLossLog})
 * is a reported loss. Offsets a line only counts ({@code and 57 more offsets}) are credited by count: to lost records
 * above the last offset the line names, as many as it counts. Every other lost record is silent: one below a deletion
 * point that no bridge reported, or one no deletion explains.
 */
final class FarLossCheck {

    /** Record {@code record} of the plan, acknowledged at {@code offset} of intake {@code partition}, never arrived. */
    record Lost(int record, int partition, long offset) {

        @Override
        public String toString() {
            return "record " + record + " (intake partition " + partition + " offset " + offset + ")";
        }
    }

    /** The lost records sorted into reported, silent below a deletion point, and silent elsewhere. */
    record Result(List<Lost> reported, List<Lost> silentBelowDeletion, List<Lost> silentElsewhere) {

        static final Result NONE = new Result(List.of(), List.of(), List.of());

        long silent() {
            return silentBelowDeletion.size() + (long) silentElsewhere.size();
        }

        /** A few silent ones, for the report. */
        List<String> silentExamples(int most) {
            List<String> examples = new ArrayList<>();
            silentBelowDeletion.stream()
                    .limit(most)
                    .forEach(l -> examples.add(l + ": below a delete-far point, reported by no bridge"));
            silentElsewhere.stream()
                    .limit(Math.max(0, most - examples.size()))
                    .forEach(l -> examples.add(l + ": not below any delete-far point"));
            return examples;
        }
    }

    private FarLossCheck() {}

    /**
     * @param lost          the lost records
     * @param deletedBefore per intake partition, the highest offset a {@code delete-far} deleted up to (exclusive)
     * @param reports       the bridges' ERROR lines of far records found gone
     */
    static Result classify(List<Lost> lost, Map<Integer, Long> deletedBefore, List<FarLossLog.Report> reports) {
        Map<Integer, TreeMap<Long, Long>> named = new HashMap<>();
        Map<Integer, List<long[]>> counted = new HashMap<>(); // per partition: {after, count}
        for (FarLossLog.Report report : reports) {
            TreeMap<Long, Long> ranges = named.computeIfAbsent(report.partition(), p -> new TreeMap<>());
            report.ranges().forEach(r -> ranges.merge(r[0], r[1], Math::max));
            if (report.more() > 0) {
                counted.computeIfAbsent(report.partition(), p -> new ArrayList<>())
                        .add(new long[] {report.lastNamed(), report.more()});
            }
        }
        List<Lost> reported = new ArrayList<>();
        List<Lost> silentBelow = new ArrayList<>();
        List<Lost> silentElsewhere = new ArrayList<>();
        Map<Integer, List<Lost>> unnamed = new TreeMap<>();
        for (Lost record : lost) {
            Long before = deletedBefore.get(record.partition());
            if (before == null || record.offset() >= before) {
                silentElsewhere.add(record);
            } else if (isNamed(named.get(record.partition()), record.offset())) {
                reported.add(record);
            } else {
                unnamed.computeIfAbsent(record.partition(), p -> new ArrayList<>())
                        .add(record);
            }
        }
        // Credit the counted offsets: each line's tail covers offsets above its last named one. Walking the unnamed
        // lost records upwards, every tail below a record can cover it (and any higher record), so it does not
        // matter which tail is charged.
        unnamed.forEach((partition, records) -> {
            records.sort(Comparator.comparingLong(Lost::offset));
            List<long[]> tails = new ArrayList<>(counted.getOrDefault(partition, List.of()));
            tails.sort(Comparator.comparingLong(t -> t[0]));
            long capacity = 0;
            int next = 0;
            for (Lost record : records) {
                while (next < tails.size() && tails.get(next)[0] < record.offset()) {
                    capacity += tails.get(next++)[1];
                }
                if (capacity > 0) {
                    capacity--;
                    reported.add(record);
                } else {
                    silentBelow.add(record);
                }
            }
        });
        return new Result(List.copyOf(reported), List.copyOf(silentBelow), List.copyOf(silentElsewhere));
    }

    /** The offsets the lines name outright, per partition (for the named ones that arrived all the same). */
    static Map<Integer, List<long[]>> namedRanges(List<FarLossLog.Report> reports) {
        Map<Integer, List<long[]>> ranges = new TreeMap<>();
        reports.forEach(r ->
                ranges.computeIfAbsent(r.partition(), p -> new ArrayList<>()).addAll(r.ranges()));
        return ranges;
    }

    private static boolean isNamed(TreeMap<Long, Long> ranges, long offset) {
        if (ranges == null) {
            return false;
        }
        // ranges of several lines may overlap: any range starting at or below the offset may hold it
        for (Map.Entry<Long, Long> range :
                ranges.headMap(offset, true).descendingMap().entrySet()) {
            if (range.getValue() >= offset) {
                return true;
            }
        }
        return false;
    }
}

package io.delaybridge.bridge.thaw;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The intake offsets, per partition, whose far records were gone from the log when their hour thawed, as ranges: the
 * health check names them until the bridge restarts. An offset reported again (an hour thawed again after a failure)
 * is counted once.
 */
final class LostOffsets {

    /** Per partition: range start -> range end (inclusive), ranges disjoint and not adjacent. */
    private final Map<Integer, TreeMap<Long, Long>> ranges = new TreeMap<>();

    /** Adds {@code offsets} of {@code partition}; returns how many were not known lost before. */
    synchronized int add(int partition, List<Long> offsets) {
        TreeMap<Long, Long> known = ranges.computeIfAbsent(partition, p -> new TreeMap<>());
        int added = 0;
        for (long offset : offsets) {
            Map.Entry<Long, Long> below = known.floorEntry(offset);
            if (below != null && below.getValue() >= offset) {
                continue;
            }
            added++;
            long start = offset;
            long end = offset;
            if (below != null && below.getValue() == offset - 1) {
                start = below.getKey();
            }
            Long next = known.higherKey(offset);
            if (next != null && next == offset + 1) {
                end = known.remove(next);
            }
            known.put(start, end);
        }
        return added;
    }

    synchronized boolean isEmpty() {
        return ranges.isEmpty();
    }

    /** Each partition with lost offsets, e.g. {@code intake partition 3 offsets 0-41, 57}; at most 10 ranges each. */
    synchronized List<String> describe() {
        List<String> lines = new ArrayList<>();
        ranges.forEach((partition, known) -> {
            StringBuilder text = new StringBuilder("intake partition " + partition + " offsets ");
            int named = 0;
            for (Map.Entry<Long, Long> range : known.entrySet()) {
                if (named == 10) {
                    text.append(", and ").append(known.size() - named).append(" more ranges");
                    break;
                }
                text.append(named == 0 ? "" : ", ").append(range.getKey());
                if (!range.getValue().equals(range.getKey())) {
                    text.append('-').append(range.getValue());
                }
                named++;
            }
            lines.add(text.toString());
        });
        return lines;
    }
}

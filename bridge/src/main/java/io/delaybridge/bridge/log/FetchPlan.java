package io.delaybridge.bridge.log;

import io.delaybridge.bridge.store.FarEntry;
import java.util.List;

/**
 * How far records are read back from the intake by offset ({@link OffsetReader}), as pure arithmetic: a far hour's
 * entries (sorted by partition and offset) are thawed in slices of a bounded size, and within a partition the needed
 * offsets are read on from the consumer's position while the next one is at most {@code maxGap} ahead (reading the few
 * records between is cheaper than a seek); a larger gap, or an offset behind what was read, is a seek.
 */
public final class FetchPlan {

    private FetchPlan() {}

    /** The end (exclusive) of the slice of {@code entries} that starts at {@code from}: at most {@code maxRecords}. */
    public static int sliceEnd(List<FarEntry> entries, int from, int maxRecords) {
        if (maxRecords < 1) {
            throw new IllegalArgumentException("a slice holds at least one record, not " + maxRecords);
        }
        return (int) Math.min(entries.size(), (long) from + maxRecords);
    }

    /** What the reader does for the next needed offset of the partition it reads. */
    enum Step {
        /** Poll on: the offset is at or a little past the position. */
        READ_ON,
        /** Seek to the offset: it lies behind what was read, or so far ahead that reading through would waste. */
        SEEK,
        /** The log was read past the offset and did not return it: the record is gone. */
        SKIPPED
    }

    /**
     * The step for needed {@code offset} of a partition read without a gap from {@code readFrom} (the last seek) up to
     * {@code position} (the next offset the consumer returns): offsets more than {@code maxGap} ahead are sought.
     */
    static Step step(long readFrom, long position, long offset, long maxGap) {
        if (offset < readFrom) {
            return Step.SEEK;
        }
        if (offset < position) {
            return Step.SKIPPED;
        }
        return offset - position > maxGap ? Step.SEEK : Step.READ_ON;
    }

    /**
     * {@code offsets} (sorted) as ranges for a log line: {@code 5-9, 12, 20-21}. At most {@code maxRanges} ranges are
     * named; the rest are counted.
     */
    public static String ranges(List<Long> offsets, int maxRanges) {
        StringBuilder text = new StringBuilder();
        int named = 0;
        int i = 0;
        while (i < offsets.size()) {
            int j = i;
            while (j + 1 < offsets.size() && offsets.get(j + 1) <= offsets.get(j) + 1) {
                j++;
            }
            if (named == maxRanges) {
                int rest = offsets.size() - i;
                text.append(", and ").append(rest).append(rest == 1 ? " more offset" : " more offsets");
                break;
            }
            if (named > 0) {
                text.append(", ");
            }
            text.append(offsets.get(i));
            if (!offsets.get(j).equals(offsets.get(i))) {
                text.append('-').append(offsets.get(j));
            }
            named++;
            i = j + 1;
        }
        return text.toString();
    }
}

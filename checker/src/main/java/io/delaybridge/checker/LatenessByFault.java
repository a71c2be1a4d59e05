package io.delaybridge.checker;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * Which fault each late record waited through: the campaign's lateness percentiles say how late, this says why.
 *
 * <p>A record counts as late when its first copy arrived more than {@link #THRESHOLD_MS} after it was due. It is
 * charged to the first fault that began while it waited (after its due time, at or before its arrival); if none
 * began then, to the last fault that began before it was due, whose after-effects it waited out (a dead bridge's
 * shards unowned until its session ends, a lease to expire, a group to settle). Records late before any fault are
 * charged to none. Pure logic over wall-clock times of one machine: the faults' start times and the records' due
 * and arrival times (broker log-append time) share the clock.
 */
final class LatenessByFault {

    /** Lateness above this counts; a fault-free minute on two cores delivers well inside it. */
    static final long THRESHOLD_MS = 1_000;

    /** One injected fault: its kind, what the injector did, and when it began and was over (all bridges healthy). */
    record Window(Fault fault, String what, long startMillis, long healthyMillis) {}

    private final List<Window> windows;
    private final long[] starts;
    private final long[] count;
    private final long[] max;
    private long unattributedCount;
    private long unattributedMax;

    /** The windows in the order they ran (ascending start). */
    LatenessByFault(List<Window> windows) {
        this.windows = List.copyOf(windows);
        this.starts = new long[windows.size()];
        for (int i = 0; i < starts.length; i++) {
            starts[i] = windows.get(i).startMillis();
            if (i > 0 && starts[i] < starts[i - 1]) {
                throw new IllegalArgumentException("fault windows out of order at " + windows.get(i));
            }
        }
        this.count = new long[starts.length];
        this.max = new long[starts.length];
    }

    /** Takes one delivered record; records on time are ignored. */
    void record(long dueMillis, long arrivalMillis) {
        long late = arrivalMillis - dueMillis;
        if (late <= THRESHOLD_MS) {
            return;
        }
        int i = cause(dueMillis, arrivalMillis);
        if (i < 0) {
            unattributedCount++;
            unattributedMax = Math.max(unattributedMax, late);
        } else {
            count[i]++;
            max[i] = Math.max(max[i], late);
        }
    }

    /** The index of the window a record waited through, or -1 when no fault had begun by its arrival. */
    int cause(long dueMillis, long arrivalMillis) {
        int firstAfterDue = firstStartAfter(dueMillis);
        if (firstAfterDue < starts.length && starts[firstAfterDue] <= arrivalMillis) {
            return firstAfterDue;
        }
        return firstAfterDue - 1;
    }

    private int firstStartAfter(long millis) {
        int lo = 0;
        int hi = starts.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (starts[mid] <= millis) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** The fault log, a line a fault, each with the late records charged to it. */
    List<String> faultLog() {
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < windows.size(); i++) {
            Window w = windows.get(i);
            lines.add(String.format(
                    "%-12s %s (%.1f s until every bridge was healthy again; %s)",
                    w.fault().optionName(),
                    w.what(),
                    (w.healthyMillis() - w.startMillis()) / 1e3,
                    late(count[i], max[i])));
        }
        return lines;
    }

    /** One line a fault kind, worst first, and one for records late with no fault begun yet. */
    List<String> byKind() {
        Map<Fault, long[]> kinds = new EnumMap<>(Fault.class);
        for (int i = 0; i < windows.size(); i++) {
            long[] k = kinds.computeIfAbsent(windows.get(i).fault(), f -> new long[3]);
            k[0]++;
            k[1] += count[i];
            k[2] = Math.max(k[2], max[i]);
        }
        List<String> lines = new ArrayList<>();
        kinds.entrySet().stream()
                .sorted((a, b) -> Long.compare(b.getValue()[1], a.getValue()[1]))
                .forEach(e -> lines.add(String.format(
                        "%-12s x%d: %s",
                        e.getKey().optionName(), e.getValue()[0], late(e.getValue()[1], e.getValue()[2]))));
        if (unattributedCount > 0 || windows.isEmpty()) {
            lines.add(String.format("%-12s     %s", "no fault yet", late(unattributedCount, unattributedMax)));
        }
        return lines;
    }

    long unattributed() {
        return unattributedCount;
    }

    long lateCount(int window) {
        return count[window];
    }

    private static String late(long records, long maxMillis) {
        String over = "late > " + THRESHOLD_MS / 1000 + " s";
        return records == 0 ? "none " + over : String.format("%,d %s, max %.1f s", records, over, maxMillis / 1e3);
    }
}

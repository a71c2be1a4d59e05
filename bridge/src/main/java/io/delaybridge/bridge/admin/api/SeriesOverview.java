package io.delaybridge.bridge.admin.api;

import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import io.delaybridge.bridge.store.MessageAdmin;
import io.delaybridge.bridge.store.MessageAdmin.StoredMessage;
import io.delaybridge.bridge.time.Time;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The status page's schedules: how many series are stored, the next due ones (next occurrence, last delivery) and what
 * this instance's meters counted of their occurrences (delivered, missed, skipped).
 *
 * <p>Series have no index of their own: each is a stored message under its id. The overview reads every shard's due
 * set earliest first, at most {@link #MAX_EXAMINED} messages in all, and counts the series among them; {@code
 * complete} says whether that was every pending message (then the count is exact; else it is a floor). A series whose
 * occurrence is being delivered right now is in flight and not counted at that moment. One reading serves the page for
 * {@link #REUSE_MILLIS}, so a page open in several browsers does not scan Redis every two seconds each.
 */
final class SeriesOverview implements Supplier<Map<String, Object>> {

    /** Pending messages read per overview, at most, over all shards. */
    static final int MAX_EXAMINED = 10_000;
    /** Series listed as next due. */
    static final int SHOWN = 10;
    /** How long one reading is shown. */
    static final long REUSE_MILLIS = 10_000;

    private static final int PAGE = 500;
    /** {@code SeriesMeters.PREFIX}: the pump's per-series meters (admin.api reads the pump's meters by name). */
    private static final String METERS = "delay.series.";

    private final MessageAdmin messages;
    private final int shards;
    private final MetricRegistry metrics;
    private final Time time;
    private Map<String, Object> last;
    private long readAt;

    /**
     * @param messages the stored messages
     * @param shards   the store's shard count
     * @param metrics  where the series' meters are ({@code delay.series.<what>.<id>})
     * @param time     the clock the reuse is timed by
     */
    SeriesOverview(MessageAdmin messages, int shards, MetricRegistry metrics, Time time) {
        this.messages = messages;
        this.shards = shards;
        this.metrics = metrics;
        this.time = time;
    }

    @Override
    public synchronized Map<String, Object> get() {
        long now = time.nanoseconds();
        if (last == null || now - readAt > TimeUnit.MILLISECONDS.toNanos(REUSE_MILLIS)) {
            last = read();
            readAt = now;
        }
        return last;
    }

    private Map<String, Object> read() {
        List<Map<String, Object>> found = new ArrayList<>();
        long examined = 0;
        boolean complete = true;
        int perShard = Math.max(PAGE, MAX_EXAMINED / Math.max(1, shards));
        for (int shard = 0; shard < shards; shard++) {
            long read = 0;
            while (true) {
                int max = (int) Math.min(PAGE, perShard - read);
                List<StoredMessage> batch =
                        max <= 0 ? List.of() : messages.scanDue(shard, 0, Long.MAX_VALUE, read, max);
                read += batch.size();
                for (StoredMessage m : batch) {
                    SeriesResource.describe(m, 1).ifPresent(found::add);
                }
                if (batch.size() < max) {
                    break;
                }
                if (read >= perShard) {
                    complete &= messages.countDue(shard, 0, Long.MAX_VALUE) <= read;
                    break;
                }
            }
            examined += read;
        }
        found.sort(Comparator.comparingLong(SeriesOverview::pendingDue));
        List<Map<String, Object>> next = new ArrayList<>();
        for (Map<String, Object> series : found.subList(0, Math.min(SHOWN, found.size()))) {
            Map<String, Object> row = new LinkedHashMap<>(series);
            row.remove("next");
            row.put("delivered", count("delivered." + series.get("id")));
            next.add(row);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("count", found.size());
        out.put("examined", examined);
        out.put("complete", complete);
        out.put("delivered", total("delivered."));
        out.put("missed", total("missed."));
        out.put("skipped", total("skipped."));
        out.put("next", next);
        return out;
    }

    @SuppressWarnings("unchecked")
    private static long pendingDue(Map<String, Object> series) {
        return (Long) ((Map<String, Object>) series.get("pending")).get("dueAt");
    }

    /** This instance's count for one series, or null if it has no meter of its own (not settled here, or past the cap). */
    private Long count(String name) {
        Meter meter = metrics.getMeters().get(METERS + name);
        return meter == null ? null : meter.getCount();
    }

    private long total(String what) {
        String prefix = METERS + what;
        return metrics.getMeters((name, m) -> name.startsWith(prefix)).values().stream()
                .mapToLong(Meter::getCount)
                .sum();
    }
}

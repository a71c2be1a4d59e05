package io.delaybridge.bridge.admin;

import io.delaybridge.bridge.pump.Pump;
import io.delaybridge.bridge.store.DelayStore;
import io.delaybridge.bridge.store.FarEntry;
import io.delaybridge.bridge.store.FarStore;
import io.delaybridge.bridge.store.MessageAdmin;
import io.delaybridge.bridge.store.ShardStats;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Per-shard figures for the API, the health checks, the gauges and the status page, read from Redis (counts, due
 * times; Redis' clock) and from Kafka (owners). Far records (docs/redis-store.md, "The far tier") are counted from the
 * lengths of their hour strings: no intake read, and due times at hour resolution.
 */
public final class ShardReport {

    /**
     * One shard: who pumps it, what it holds, how late it is.
     *
     * @param pending hot records waiting for their due time (not in flight)
     * @param far     records waiting in the far tier (their payload in the intake's log)
     */
    public record Shard(
            int shard,
            String owner,
            boolean pumpedHere,
            boolean paused,
            Long epoch,
            long pending,
            long inFlight,
            long far,
            Long nextDueAt,
            long oldestOverdueMillis) {}

    /**
     * A due-time bucket of the pending histogram: messages due in {@code [from, to)} (Redis time, epoch ms).
     *
     * @param count all of them, hot and far
     * @param far   those of {@code count} in the far tier, counted by due hour ({@link #histogram})
     */
    public record Bucket(String label, Long from, Long to, long count, long far) {}

    private static final long MINUTE = 60_000;
    private static final long HOUR = 60 * MINUTE;
    private static final long DAY = 24 * HOUR;
    private static final String[] LABELS = {
        "overdue", "next minute", "next hour", "next day", "next week", "next 30 days", "later"
    };
    private static final long[] EDGES = {0, MINUTE, HOUR, DAY, 7 * DAY, 30 * DAY};

    private final DelayStore store;
    private final MessageAdmin messages;
    private final FarStore farStore;
    private final Pump pump;
    private final GroupView group;

    public ShardReport(DelayStore store, MessageAdmin messages, FarStore farStore, Pump pump, GroupView group) {
        this.store = store;
        this.messages = messages;
        this.farStore = farStore;
        this.pump = pump;
        this.group = group;
    }

    public int shardCount() {
        return store.shardCount();
    }

    public long redisNow() {
        return store.now();
    }

    public GroupView.Snapshot group() {
        return group.snapshot();
    }

    public List<Shard> shards() {
        long now = store.now();
        Map<Integer, String> owners = group.snapshot().owners();
        List<Integer> here = pump.ownedShards();
        List<Shard> shards = new ArrayList<>(store.shardCount());
        for (int shard = 0; shard < store.shardCount(); shard++) {
            ShardStats stats = store.stats(shard);
            Long next = stats.nextDueAt() < 0 ? null : stats.nextDueAt();
            shards.add(new Shard(
                    shard,
                    owners.get(shard),
                    here.contains(shard),
                    pump.pauses().paused(shard),
                    messages.epoch(shard).isPresent() ? messages.epoch(shard).getAsLong() : null,
                    stats.pending(),
                    stats.inFlight(),
                    farStore.farCount(shard),
                    next,
                    next != null && next < now ? now - next : 0));
        }
        return shards;
    }

    /** The largest overdue age over all shards, and which shard it is in (-1 if none is overdue). */
    public long[] oldestOverdue() {
        long now = store.now();
        long age = 0;
        long which = -1;
        for (int shard = 0; shard < store.shardCount(); shard++) {
            var next = store.nextDueAt(shard);
            if (next.isPresent() && now - next.getAsLong() > age) {
                age = now - next.getAsLong();
                which = shard;
            }
        }
        return new long[] {age, which};
    }

    /**
     * Pending messages by due-time bucket, over all shards or one ({@code shard} null for all). Far records are
     * counted per due hour: an hour's count goes to the bucket holding the hour's start; an hour under way counts as
     * "next hour", one already over (its thaw is behind) as "overdue".
     */
    public List<Bucket> histogram(Integer shard) {
        long now = store.now();
        long[] froms = new long[LABELS.length];
        long[] tos = new long[LABELS.length];
        for (int i = 0; i < LABELS.length; i++) {
            froms[i] = i == 0 ? Long.MIN_VALUE / 2 : now + EDGES[i - 1];
            tos[i] = i == LABELS.length - 1 ? Long.MAX_VALUE / 2 : now + EDGES[i];
            if (i == 0) {
                tos[i] = now + 1; // due now or before
            } else if (i == 1) {
                froms[i] = now + 1;
            }
        }
        long[] far = new long[LABELS.length];
        for (int s = 0; s < store.shardCount(); s++) {
            if (shard == null || shard == s) {
                farStore.farCountsByHour(s).forEach((hour, count) -> far[farBucket(hour, now, tos)] += count);
            }
        }
        List<Bucket> buckets = new ArrayList<>();
        for (int i = 0; i < LABELS.length; i++) {
            long count = 0;
            for (int s = 0; s < store.shardCount(); s++) {
                if (shard == null || shard == s) {
                    count += messages.countDue(s, froms[i], tos[i]);
                }
            }
            buckets.add(new Bucket(
                    LABELS[i],
                    i == 0 ? null : froms[i],
                    i == LABELS.length - 1 ? null : tos[i],
                    count + far[i],
                    far[i]));
        }
        return buckets;
    }

    /** The histogram bucket a far hour's entries count in (see {@link #histogram}). */
    static int farBucket(long hour, long now, long[] tos) {
        long start = hour * FarEntry.HOUR_MILLIS;
        if (start + FarEntry.HOUR_MILLIS <= now) {
            return 0; // over: overdue
        }
        long at = Math.max(start, now + EDGES[1]); // under way: next hour
        for (int i = 1; i < tos.length; i++) {
            if (at < tos[i]) {
                return i;
            }
        }
        return tos.length - 1;
    }

    /** Totals for the status page and the shard route. */
    public Map<String, Object> totals(List<Shard> shards) {
        Map<String, Object> totals = new LinkedHashMap<>();
        totals.put("pending", shards.stream().mapToLong(Shard::pending).sum());
        totals.put("inFlight", shards.stream().mapToLong(Shard::inFlight).sum());
        totals.put("far", shards.stream().mapToLong(Shard::far).sum());
        totals.put(
                "oldestOverdueMillis",
                shards.stream().mapToLong(Shard::oldestOverdueMillis).max().orElse(0));
        return totals;
    }
}

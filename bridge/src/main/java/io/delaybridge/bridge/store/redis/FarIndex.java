package io.delaybridge.bridge.store.redis;

import static io.delaybridge.bridge.store.redis.RedisCalls.bytes;

import io.delaybridge.bridge.store.FarEntry;
import io.delaybridge.bridge.store.FarHour;
import io.delaybridge.bridge.store.FarStore;
import io.delaybridge.bridge.store.ShardRouter;
import io.delaybridge.bridge.store.StoreException;
import io.delaybridge.bridge.store.StoreFencedException;
import io.delaybridge.bridge.store.WriteOp;
import io.delaybridge.bridge.store.WriteResult;
import io.delaybridge.bridge.store.redis.RedisKeys.ShardKeys;
import io.delaybridge.bridge.store.redis.ScriptRunner.Script;
import io.lettuce.core.Range;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * The far tier's index in Redis: for a record due far ahead, whose payload stays in the intake topic's log, a 12-byte
 * entry (intake partition, offset, due time) in a string per shard and due hour, and the shard's hours in a zset
 * (docs/redis-store.md, "The far tier": the layout measured against the others, 17.6 B an entry at 10,000,000). The thaw reads an
 * hour whole, fetches its records from the intake in (partition, offset) order, stores them hot, and then removes the
 * hour under the shard's fencing epoch ({@code far_thawed.lua}).
 *
 * <p>Far records are written by {@code schedule.lua} (the intake's writes with {@link WriteOp.Schedule#far()} set),
 * and thawed through it too ({@link WritePlan#thaw}), on the intake's {@link WritePipeline}: in order with the intake's
 * writes, run again after a NOSCRIPT, behind the same {@code WAIT} for replicas.
 */
public final class FarIndex implements FarStore {

    /** The width of a due-time bucket: one string per shard and hour. */
    public static final long HOUR_MILLIS = FarEntry.HOUR_MILLIS;

    static final int ENTRY_BYTES = 12;

    /**
     * An entry's last 4 bytes (ms within the hour, always below 3,600,000) once its record is thawed: written by the
     * thaw that stored the record hot, in the same script call ({@code schedule.lua}), so that a later thaw of the
     * hour skips it.
     */
    static final int THAWED = 0xFFFFFFFF;

    private final RedisClusterAsyncCommands<byte[], byte[]> commands;
    private final ScriptRunner scripts;
    private final RedisKeys keys;
    private final ShardRouter router;
    private final WritePlan plan;
    private final WritePipeline writes;
    private final long awaitMillis;

    /**
     * @param commands the store's shared command connection, for reads and {@code far_thawed.lua}
     * @param writes   the intake's write pipeline: thaws store through it ({@code plan}'s {@link WritePlan#thaw}), in
     *                 order with the intake's writes, behind the same replica wait and NOSCRIPT re-run
     */
    FarIndex(
            RedisClusterAsyncCommands<byte[], byte[]> commands,
            ScriptRunner scripts,
            RedisKeys keys,
            ShardRouter router,
            WritePlan plan,
            WritePipeline writes,
            long awaitMillis) {
        this.commands = commands;
        this.scripts = scripts;
        this.keys = keys;
        this.router = router;
        this.plan = plan;
        this.writes = writes;
        this.awaitMillis = awaitMillis;
    }

    /** The hours of {@code shard} that hold entries and start at or before {@code untilMillis}, earliest first. */
    @Override
    public List<Long> farHours(int shard, long untilMillis) {
        List<byte[]> members = await(
                commands.zrangebyscore(
                        keys.shard(shard).farIndex(), Range.create(Double.NEGATIVE_INFINITY, (double) untilMillis)),
                "far hours of shard " + shard);
        List<Long> hours = new ArrayList<>(members.size());
        members.forEach(m -> hours.add(Long.parseLong(new String(m, StandardCharsets.US_ASCII))));
        return hours;
    }

    /**
     * Reads an hour of {@code shard} from byte {@code from} on (0: whole); its entries not marked thawed, sorted by
     * partition, offset, each with its position in the string.
     */
    @Override
    public FarHour readFar(int shard, long hour, int from) {
        byte[] value = await(
                commands.getrange(keys.farHour(shard, hour), from, -1),
                "far read of hour " + hour + " on shard " + shard);
        int whole = value.length - value.length % ENTRY_BYTES;
        List<FarHour.Slot> slots = new ArrayList<>(whole / ENTRY_BYTES);
        ByteBuffer buffer = ByteBuffer.wrap(value, 0, whole);
        while (buffer.remaining() >= ENTRY_BYTES) {
            int position = from + buffer.position();
            int partition = buffer.getShort() & 0xFFFF;
            long offset = ((buffer.getShort() & 0xFFFFL) << 32) | (buffer.getInt() & 0xFFFFFFFFL);
            int withinHour = buffer.getInt();
            if (withinHour != THAWED) {
                slots.add(new FarHour.Slot(
                        new FarEntry(partition, offset, hour * HOUR_MILLIS + (withinHour & 0xFFFFFFFFL)), position));
            }
        }
        slots.sort(Comparator.comparingInt((FarHour.Slot slot) -> slot.entry().partition())
                .thenComparingLong(slot -> slot.entry().offset()));
        return new FarHour(hour, slots, from + whole);
    }

    /**
     * The records of an hour read up to {@code length} bytes are hot: the hour goes unless entries were appended
     * since; returns 0 if it went, else the length to read on from. A stale {@code epoch} throws
     * {@code StoreFencedException}.
     */
    @Override
    public long farThawed(int shard, long epoch, long hour, int length, long forgetBefore) {
        ShardKeys k = keys.shard(shard);
        Long left = await(
                scripts.run(
                        commands,
                        Script.FAR_THAWED,
                        Script.FAR_THAWED.signature().keysOf(k, List.of(keys.farHour(shard, hour))),
                        Script.FAR_THAWED.argv(bytes(epoch), bytes(hour), bytes(length), bytes(forgetBefore))),
                "far thaw of hour " + hour + " on shard " + shard);
        return ScriptCodes.check(left, "far thaw", shard, epoch);
    }

    @Override
    public long farCount(int shard) {
        long entries = 0;
        for (long count : farCountsByHour(shard).values()) {
            entries += count;
        }
        return entries;
    }

    @Override
    public Map<Long, Long> farCountsByHour(int shard) {
        List<Long> hours = farHours(shard, Long.MAX_VALUE);
        List<RedisFuture<Long>> lengths = new ArrayList<>(hours.size());
        hours.forEach(hour -> lengths.add(commands.strlen(keys.farHour(shard, hour))));
        Map<Long, Long> counts = new LinkedHashMap<>();
        for (int i = 0; i < hours.size(); i++) {
            long bytes = await(lengths.get(i), "far count of shard " + shard);
            if (bytes >= ENTRY_BYTES) {
                counts.put(hours.get(i), bytes / ENTRY_BYTES);
            }
        }
        return counts;
    }

    @Override
    public CompletableFuture<List<WriteResult>> thaw(int shard, long epoch, List<WriteOp.Schedule> records) {
        return run(shard, epoch, records, plan.thaw(shard, epoch, records));
    }

    @Override
    public CompletableFuture<List<WriteResult>> thaw(
            int shard, long epoch, long hour, List<WriteOp.Schedule> records, List<List<FarHour.Slot>> slots) {
        return run(shard, epoch, records, plan.thaw(shard, epoch, records, hour, slots));
    }

    private CompletableFuture<List<WriteResult>> run(
            int shard, long epoch, List<WriteOp.Schedule> records, List<WritePlan.Call> calls) {
        return writes.run(calls, records.size()).handle((results, error) -> {
            if (error == null) {
                return results;
            }
            Throwable cause =
                    error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
            if (cause instanceof StoreFencedException) {
                throw new StoreFencedException(shard, epoch, "thaw"); // the pipeline does not know the epoch
            }
            throw cause instanceof StoreException s
                    ? s
                    : RedisErrors.translate(cause, "thaw of " + records.size() + " records on shard " + shard);
        });
    }

    private <T> T await(CompletionStage<T> future, String operation) {
        return RedisCalls.await(future, operation, awaitMillis);
    }

    @Override
    public Optional<FarVersion> farVersion(String id) {
        ShardRouter.Placement placement = router.place(id);
        if (placement.offset() >= 0) {
            return Optional.empty(); // a default id has no version: its record waits under its own position
        }
        byte[] version = await(
                commands.hget(keys.farIds(placement.shard(), placement.member()), placement.member()),
                "far version of message '" + id + "'");
        if (version == null || version.length != 20) {
            return Optional.empty();
        }
        ByteBuffer b = ByteBuffer.wrap(version);
        int partition = b.getShort() & 0xFFFF;
        long offset = ((b.getShort() & 0xFFFFL) << 32) | (b.getInt() & 0xFFFFFFFFL);
        long timestamp = ((b.getShort() & 0xFFFFL) << 32) | (b.getInt() & 0xFFFFFFFFL);
        long dueAt = ((b.getShort() & 0xFFFFL) << 32) | (b.getInt() & 0xFFFFFFFFL);
        return Optional.of(new FarVersion(partition, offset, timestamp, dueAt));
    }

    @Override
    public boolean farHolds(int shard, FarEntry entry) {
        byte[] wanted = encode(entry);
        for (FarEntry held : readFar(shard, entry.hour(), 0).entries()) {
            if (Arrays.equals(encode(held), wanted)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The 12 bytes of a slot as its record's thaw finds it in the hour's string, then its position: what
     * {@code schedule.lua} compares before it stores the record and marks the entry thawed.
     */
    static byte[] mark(FarHour.Slot slot) {
        return ByteBuffer.allocate(4 + ENTRY_BYTES)
                .putInt(slot.position())
                .put(encode(slot.entry()))
                .array();
    }

    static byte[] encode(FarEntry entry) {
        return ByteBuffer.allocate(ENTRY_BYTES)
                .putShort((short) entry.partition())
                .putShort((short) (entry.offset() >>> 32))
                .putInt((int) entry.offset())
                .putInt((int) (entry.dueAt() - entry.hour() * HOUR_MILLIS))
                .array();
    }
}

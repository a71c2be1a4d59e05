package io.delaybridge.bench;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * Redis memory per far-tier index entry (a record due far ahead whose payload stays in the intake log: Redis keeps its
 * due time and intake position, and what ids need) for candidate layouts, in one run on the same Redis: the
 * measurement behind the far layout in docs/redis-store.md ("The far tier"). Entries are spread over 8 shards (intake
 * partition = shard, consecutive offsets per partition) with due times uniform over {@link #SPREAD_DAYS} days from
 * now; each candidate is written with plain pipelined commands in the key shapes it would use (only their size is
 * asked here). The compact encodings need Redis' defaults only ({@code *-max-listpack-entries} 128, values up to 64 B).
 */
final class FarLayouts {

    static final int SHARDS = 8;
    static final int SPREAD_DAYS = 7;
    private static final int PIPELINE = 2_000;
    /** The explicit ids' length in the candidates that hold them. */
    static final int ID_LENGTH = 16;

    private final String redisUri;
    private final RedisCommands<String, String> admin;
    private final String prefix;

    FarLayouts(String redisUri, RedisCommands<String, String> admin, String prefix) {
        this.redisUri = redisUri;
        this.admin = admin;
        this.prefix = prefix;
    }

    private interface Writer {
        void write(int shard, long offset, long due, List<RedisFuture<?>> ops);
    }

    /**
     * Layout name -> bytes of used_memory per far entry, for n entries; with {@code chosenOnly}, only the layouts the
     * store uses (due-hour strings, id hashes by id hash), for a run at scale.
     */
    Map<String, Double> measure(int n, boolean chosenOnly) throws Exception {
        long now = System.currentTimeMillis();
        Random random = new Random(13);
        long[] due = new long[n];
        for (int i = 0; i < n; i++) {
            due[i] = now
                    + TimeUnit.HOURS.toMillis(1)
                    + (long) (random.nextDouble() * TimeUnit.DAYS.toMillis(SPREAD_DAYS));
        }
        Map<String, Double> perEntry = new LinkedHashMap<>();
        try (RedisClient client = RedisClient.create(redisUri);
                StatefulRedisConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE)) {
            RedisAsyncCommands<byte[], byte[]> redis = connection.async();
            RedisInfo.awaitNoAofRewrite(admin, 5, TimeUnit.MINUTES);
            if (!chosenOnly) {
                perEntry.put(
                        "default ids: zset per shard, member partition+offset (8 B), score due",
                        written(
                                n,
                                due,
                                redis,
                                (shard, offset, d, ops) ->
                                        ops.add(redis.zadd(key(shard, "far"), d, position(shard, offset)))));
            }
            for (long bucketMinutes : chosenOnly ? new long[] {60} : new long[] {60, 10}) {
                long width = TimeUnit.MINUTES.toMillis(bucketMinutes);
                perEntry.put(
                        "default ids: strings per shard and due " + bucketMinutes + " min, 12-byte entries "
                                + "appended, + bucket index zset",
                        written(
                                n,
                                due,
                                redis,
                                (shard, offset, d, ops) -> appendToBucket(redis, ops, shard, offset, d, width)));
            }
            if (chosenOnly) {
                perEntry.put(
                        "explicit ids (" + ID_LENGTH + " chars): hour strings as above + id hashes of ~64 ids "
                                + "per shard by id hash (listpack; " + idBuckets(n)
                                + " a shard), id -> 12-byte position",
                        explicitBucketed(n, due, redis));
                return perEntry;
            }
            perEntry.put(
                    "default ids: hashes per shard and 128 offsets, field offset%128 -> due (listpack), "
                            + "+ index zset",
                    written(n, due, redis, (shard, offset, d, ops) -> {
                        ops.add(redis.hset(
                                key(shard, "farb:" + offset / 128),
                                Long.toString(offset % 128).getBytes(StandardCharsets.US_ASCII),
                                Long.toString(d).getBytes(StandardCharsets.US_ASCII)));
                        if (offset % 128 == 0) {
                            ops.add(redis.zadd(
                                    key(shard, "faridx"),
                                    d,
                                    Long.toString(offset / 128).getBytes(StandardCharsets.US_ASCII)));
                        }
                    }));
            long hour = TimeUnit.HOURS.toMillis(1);
            perEntry.put(
                    "explicit ids (" + ID_LENGTH + " chars): hour strings as above + one hash per shard, id -> "
                            + "12-byte position",
                    written(n, due, redis, (shard, offset, d, ops) -> {
                        appendToBucket(redis, ops, shard, offset, d, hour);
                        ops.add(redis.hset(key(shard, "farids"), id(shard, offset), entry(shard, offset, 0)));
                    }));
            perEntry.put(
                    "explicit ids (" + ID_LENGTH + " chars): hour strings as above + id hashes of ~64 ids "
                            + "per shard by id hash (listpack; " + idBuckets(n) + " a shard), id -> 12-byte position",
                    explicitBucketed(n, due, redis));
        } finally {
            StoreLayouts.deleteKeys(admin, prefix + ":*");
        }
        return perEntry;
    }

    /** The entry appended to the string of its due bucket ({@code width} ms), the bucket added to the index. */
    private void appendToBucket(
            RedisAsyncCommands<byte[], byte[]> redis,
            List<RedisFuture<?>> ops,
            int shard,
            long offset,
            long due,
            long width) {
        long bucket = due / width;
        ops.add(redis.append(key(shard, "far:" + bucket), entry(shard, offset, due - bucket * width)));
        ops.add(redis.zadd(
                key(shard, "faridx"), bucket * width, Long.toString(bucket).getBytes(StandardCharsets.US_ASCII)));
    }

    /** Id buckets per shard: about 64 ids each, so that every bucket stays a listpack (128 entries at most). */
    static int idBuckets(int n) {
        return Math.max(1024, n / SHARDS / 64);
    }

    private double explicitBucketed(int n, long[] due, RedisAsyncCommands<byte[], byte[]> redis) throws Exception {
        long hour = TimeUnit.HOURS.toMillis(1);
        int idBuckets = idBuckets(n);
        return written(n, due, redis, (shard, offset, d, ops) -> {
            byte[] id = id(shard, offset);
            appendToBucket(redis, ops, shard, offset, d, hour);
            ops.add(redis.hset(
                    key(
                            shard,
                            "farids:"
                                    + ((new String(id, StandardCharsets.US_ASCII).hashCode() & 0x7fffffff)
                                            % idBuckets)),
                    id,
                    entry(shard, offset, 0)));
        });
    }

    private double written(int n, long[] due, RedisAsyncCommands<byte[], byte[]> redis, Writer writer)
            throws Exception {
        long before = RedisInfo.dataMemory(admin);
        List<RedisFuture<?>> ops = new ArrayList<>(PIPELINE * 3);
        for (int i = 0; i < n; i++) {
            writer.write(i % SHARDS, i / SHARDS, due[i], ops);
            if (ops.size() >= PIPELINE) {
                awaitAll(ops);
            }
        }
        awaitAll(ops);
        double perEntry = (RedisInfo.dataMemory(admin) - before) / (double) n;
        StoreLayouts.deleteKeys(admin, prefix + ":*");
        return perEntry;
    }

    private static void awaitAll(List<RedisFuture<?>> ops) throws Exception {
        for (RedisFuture<?> op : ops) {
            op.get(60, TimeUnit.SECONDS);
        }
        ops.clear();
    }

    private byte[] key(int shard, String name) {
        return (prefix + ":{t:" + shard + "}:" + name).getBytes(StandardCharsets.UTF_8);
    }

    /** Intake partition (2 bytes) and offset (6 bytes). */
    private static byte[] position(int partition, long offset) {
        return ByteBuffer.allocate(8)
                .putShort((short) partition)
                .putShort((short) (offset >>> 32))
                .putInt((int) offset)
                .array();
    }

    /** Position (8 bytes) and the due time's ms within its bucket (4 bytes). */
    private static byte[] entry(int partition, long offset, long dueInBucket) {
        return ByteBuffer.allocate(12)
                .put(position(partition, offset))
                .putInt((int) dueInBucket)
                .array();
    }

    private static byte[] id(int shard, long offset) {
        return String.format("o%02d-%012d", shard, offset).getBytes(StandardCharsets.US_ASCII); // 16 chars, unique
    }
}

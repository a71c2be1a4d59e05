package io.delaybridge.bench;

import io.delaybridge.bridge.store.redis.RedisDelayStore;
import io.delaybridge.bridge.store.redis.RedisStoreOptions;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * Redis memory per pending message of the store's layout against candidate compact layouts, in one run on the same
 * Redis: the measurement behind the layout choice in docs/redis-store.md ("Memory"). The baseline is the real store
 * ({@link RedisDelayStore#write}, default ids, one shard); the candidates are written with plain pipelined commands
 * in the key shapes they would use, since only their size is asked here, not their scripts.
 *
 * <ul>
 *   <li>{@code current, emulated}: the store's shapes ({@code due} zset and {@code msg} hash per shard), to show the
 *       emulation matches the real store.</li>
 *   <li>{@code buckets}: due times in zsets of 128 consecutive offsets, plus an index zset of buckets by earliest due
 *       time; stored values in hashes of the same 128 offsets. Small enough for Redis' compact encoding (ziplist,
 *       listpack from Redis 7) once {@code hash-max-ziplist-value} is at least the stored value's size.</li>
 *   <li>{@code value in member}: the stored value inside the due zset's member (8-byte offset + value), zsets of 128
 *       offsets and the index: one compact entry per message. Needs {@code zset-max-ziplist-value} above the size of
 *       offset + value.</li>
 * </ul>
 * The candidates run with both {@code *-max-ziplist-value} raised to 1024 (restored afterwards).
 */
final class StoreLayouts {

    private static final int BUCKET = 128;
    private static final int PIPELINE = 2_000;

    private final String redisUri;
    private final RedisCommands<String, String> admin;
    private final String prefix;

    StoreLayouts(String redisUri, RedisCommands<String, String> admin, String prefix) {
        this.redisUri = redisUri;
        this.admin = admin;
        this.prefix = prefix;
    }

    /** Layout name -> bytes of used_memory per message, for n messages with stored values of valueBytes. */
    Map<String, Double> measure(int n, int valueBytes) throws Exception {
        byte[] value = new byte[valueBytes];
        new Random(7).nextBytes(value);
        long[] due = dueTimes(n);
        Map<String, Double> perMessage = new LinkedHashMap<>();
        Map<String, String> saved = new LinkedHashMap<>();
        for (String key : List.of("hash-max-ziplist-value", "zset-max-ziplist-value", "auto-aof-rewrite-percentage")) {
            saved.put(key, admin.configGet(key).get(key));
        }
        // An AOF rewrite that Redis starts by itself keeps a buffer of the writes made meanwhile: none during this.
        admin.configSet("auto-aof-rewrite-percentage", "0");
        try (RedisClient client = RedisClient.create(redisUri);
                StatefulRedisConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE)) {
            RedisAsyncCommands<byte[], byte[]> redis = connection.async();
            RedisInfo.awaitNoAofRewrite(admin, 5, TimeUnit.MINUTES);
            perMessage.put("store (RedisDelayStore.write)", realStore(n, value, due));
            perMessage.put("current, emulated", written(n, redis, (i, ops) -> {
                ops.add(redis.zadd(key("due"), due[i], offset(i)));
                ops.add(redis.hset(key("msg"), offset(i), value));
            }));
            admin.configSet("hash-max-ziplist-value", "1024");
            admin.configSet("zset-max-ziplist-value", "1024");
            perMessage.put(
                    "buckets of 128 offsets (due zset + value hash each, compact)", written(n, redis, (i, ops) -> {
                        ops.add(redis.zadd(key("due:" + i / BUCKET), due[i], offset(i)));
                        ops.add(redis.hset(key("msg:" + i / BUCKET), offset(i), value));
                        index(redis, ops, i, due);
                    }));
            perMessage.put("value in the due member, buckets of 128 offsets (compact)", written(n, redis, (i, ops) -> {
                ops.add(redis.zadd(key("due:" + i / BUCKET), due[i], concat(offset(i), value)));
                index(redis, ops, i, due);
            }));
        } finally {
            deleteKeys(prefix + "s:*");
            deleteKeys(prefix + "l:*");
            saved.forEach((key, setting) -> {
                try {
                    admin.configSet(key, setting);
                } catch (RuntimeException e) {
                    BenchRun.log("  could not restore %s %s: %s", key, setting, e);
                }
            });
        }
        return perMessage;
    }

    /** used_memory per pending record of the real store alone: the hot baseline beside other layouts. */
    double measureStore(int n, int valueBytes) throws Exception {
        byte[] value = new byte[valueBytes];
        new Random(7).nextBytes(value);
        RedisInfo.awaitNoAofRewrite(admin, 5, TimeUnit.MINUTES);
        return realStore(n, value, dueTimes(n));
    }

    /** An hour of due times, 6 hours from now, in intake order. */
    private static long[] dueTimes(int n) {
        long baseDue = System.currentTimeMillis() + TimeUnit.HOURS.toMillis(6);
        Random dueSpread = new Random(11);
        long[] due = new long[n];
        for (int i = 0; i < n; i++) {
            due[i] = baseDue + dueSpread.nextInt(3_600_000);
        }
        return due;
    }

    private interface Writer {
        void write(int i, List<RedisFuture<?>> ops);
    }

    private double realStore(int n, byte[] envelope, long[] due) throws Exception {
        String topic = prefix + "-intake";
        long before = usedMemory();
        try (RedisDelayStore store = RedisDelayStore.connect(RedisStoreOptions.of(redisUri, topic, 1)
                .withKeyPrefix(prefix + "s")
                .withCommandTimeout(Duration.ofSeconds(60)))) {
            LimitsScenario.schedule(store, topic, 0, n, i -> due[i], envelope);
        }
        double perMessage = (usedMemory() - before) / (double) n;
        deleteKeys(prefix + "s:*");
        return perMessage;
    }

    private double written(int n, RedisAsyncCommands<byte[], byte[]> redis, Writer writer) throws Exception {
        long before = usedMemory();
        List<RedisFuture<?>> ops = new ArrayList<>(PIPELINE * 3);
        for (int i = 0; i < n; i++) {
            writer.write(i, ops);
            if (ops.size() >= PIPELINE) {
                awaitAll(ops);
            }
        }
        awaitAll(ops);
        double perMessage = (usedMemory() - before) / (double) n;
        deleteKeys(prefix + "l:*");
        return perMessage;
    }

    /** The bucket index: each bucket under its earliest due time (ZADD LT needs Redis 6.2; the first write sets it). */
    private void index(RedisAsyncCommands<byte[], byte[]> redis, List<RedisFuture<?>> ops, int i, long[] due) {
        if (i % BUCKET == 0) {
            long earliest = Long.MAX_VALUE;
            for (int j = i; j < Math.min(due.length, i + BUCKET); j++) {
                earliest = Math.min(earliest, due[j]);
            }
            ops.add(redis.zadd(
                    key("idx"),
                    earliest,
                    ByteBuffer.allocate(8).putLong(i / BUCKET).array()));
        }
    }

    private static void awaitAll(List<RedisFuture<?>> ops) throws Exception {
        for (RedisFuture<?> op : ops) {
            op.get(60, TimeUnit.SECONDS);
        }
        ops.clear();
    }

    private byte[] key(String name) {
        return (prefix + "l:{0}:" + name).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] offset(long offset) {
        return ByteBuffer.allocate(8).putLong(offset).array();
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = new byte[a.length + b.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    private void deleteKeys(String pattern) {
        deleteKeys(admin, pattern);
    }

    /** Deletes (synchronously, so used_memory drops at once) every key that matches the pattern. */
    static void deleteKeys(RedisCommands<String, String> admin, String pattern) {
        ScanCursor cursor = ScanCursor.INITIAL;
        do {
            KeyScanCursor<String> page =
                    admin.scan(cursor, ScanArgs.Builder.matches(pattern).limit(1_000));
            if (!page.getKeys().isEmpty()) {
                admin.del(page.getKeys().toArray(String[]::new));
            }
            cursor = page;
        } while (!cursor.isFinished());
    }

    private long usedMemory() {
        return RedisInfo.dataMemory(admin);
    }
}

package io.delaybridge.bridge.store.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.bridge.store.WriteOp;
import io.delaybridge.bridge.store.WriteResult;
import io.delaybridge.schemas.IntakeOrigin;
import io.delaybridge.testkit.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.LongFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Measures Redis memory per pending message and prints it: {@code used_memory} before and after 100,000 schedules of a
 * 200-byte envelope, and {@code MEMORY USAGE} of one shard's keys to say where the bytes go. Each layout on a fresh
 * server, so nothing else moves the figure.
 */
class RedisMemoryIT {

    private static final int MESSAGES = 100_000;
    private static final int ENVELOPE_BYTES = 200;
    private static final int SHARDS = 8;
    private static final String TOPIC = "delay-intake";

    @TempDir
    Path dir;

    @Test
    void memoryPerPendingMessageWithDefaultIds() throws Exception {
        Figures f = measure(dir.resolve("default"), i -> {
            int partition = (int) (i % SHARDS);
            long offset = 1_000_000_000L + i / SHARDS; // a topic that has seen a billion records
            return new WriteOp.Schedule(
                    TOPIC + "-" + partition + "-" + offset,
                    dueAt(i),
                    new IntakeOrigin(TOPIC, partition, offset),
                    new byte[ENVELOPE_BYTES]);
        });
        f.print("default ids (delay-intake-<p>-<offset>, member 8 bytes, origin implied)");
        // a regression guard, not the target: the target is payload + 100 bytes (see the report)
        assertTrue(f.perMessage() < ENVELOPE_BYTES + 250, "bytes per message: " + f.perMessage());
    }

    @Test
    void memoryPerPendingMessageWithExplicitIds() throws Exception {
        Figures f = measure(
                dir.resolve("explicit"),
                i -> new WriteOp.Schedule(
                        String.format(Locale.ROOT, "order-%010d", i),
                        dueAt(i),
                        new IntakeOrigin(TOPIC, 3, (1_000_000_000L + i)),
                        new byte[ENVELOPE_BYTES]));
        f.print("explicit 16-char ids (member 17 bytes, origin token 23 bytes kept)");
        assertTrue(f.perMessage() < ENVELOPE_BYTES + 300, "bytes per message: " + f.perMessage());
    }

    private static long dueAt(long i) {
        return 1_900_000_000_000L + i * 37 % 86_400_000; // spread over a day, in the future
    }

    private record Figures(long before, long after, long dueBytes, long msgBytes, long shardCount) {
        double perMessage() {
            return (after - before) / (double) MESSAGES;
        }

        void print(String layout) {
            System.out.printf(
                    Locale.ROOT, "%nRedis memory per pending message, %s, %d-byte envelope:%n", layout, ENVELOPE_BYTES);
            System.out.printf(
                    Locale.ROOT,
                    "  used_memory delta over %,d messages: %,d bytes = %.1f bytes/message"
                            + " (payload %d + overhead %.1f)%n",
                    MESSAGES,
                    after - before,
                    perMessage(),
                    ENVELOPE_BYTES,
                    perMessage() - ENVELOPE_BYTES);
            System.out.printf(
                    Locale.ROOT,
                    "  one shard (%,d messages): due zset %.1f B/msg, msg hash %.1f B/msg"
                            + " (MEMORY USAGE ... SAMPLES 0)%n",
                    shardCount,
                    dueBytes / (double) shardCount,
                    msgBytes / (double) shardCount);
        }
    }

    private static Figures measure(Path dir, LongFunction<WriteOp.Schedule> message) throws Exception {
        try (RedisServer redis = RedisServer.start(dir);
                RedisDelayStore store = RedisDelayStore.connect(
                        RedisStoreOptions.of(redis.uri(), TOPIC, SHARDS).withKeyPrefix("mem"))) {
            RedisClient client = RedisClient.create(redis.uri());
            try (StatefulRedisConnection<String, String> connection = client.connect()) {
                RedisCommands<String, String> redisCli = connection.sync();
                long before = usedMemory(redisCli);
                long started = System.nanoTime();
                for (int from = 0; from < MESSAGES; from += 1_000) {
                    List<WriteOp> ops = new ArrayList<>(1_000);
                    for (long i = from; i < from + 1_000; i++) {
                        ops.add(message.apply(i));
                    }
                    List<WriteResult> results = store.write(ops).get(60, TimeUnit.SECONDS);
                    assertTrue(results.stream().allMatch(r -> r == WriteResult.STORED));
                }
                long elapsedNanos = System.nanoTime() - started;
                System.out.printf(
                        Locale.ROOT,
                        "%nwrote %,d schedules in batches of 1,000 in %d ms (%,.0f/s, AOF"
                                + " appendfsync always, server on this machine)%n",
                        MESSAGES,
                        elapsedNanos / 1_000_000,
                        MESSAGES / (elapsedNanos / 1e9));
                String evalsha =
                        RedisCalls.parseInfo(redisCli.info("commandstats")).get("cmdstat_evalsha");
                System.out.println("  server side: " + evalsha);
                long after = usedMemory(redisCli);
                long total = 0;
                for (int shard = 0; shard < SHARDS; shard++) {
                    total += store.stats(shard).pending();
                }
                assertEquals(MESSAGES, total);
                RedisKeys.ShardKeys shard0 = store.keys().shard(0);
                long dueBytes = memoryUsage(redisCli, new String(shard0.due()));
                long msgBytes = memoryUsage(redisCli, new String(shard0.msg()));
                return new Figures(
                        before, after, dueBytes, msgBytes, store.stats(0).pending());
            } finally {
                client.shutdown();
            }
        }
    }

    /** MEMORY USAGE key SAMPLES 0: every element counted, not a sample of five. */
    private static long memoryUsage(RedisCommands<String, String> redis, String key) {
        return redis.dispatch(
                CommandType.MEMORY,
                new IntegerOutput<>(StringCodec.UTF8),
                new CommandArgs<>(StringCodec.UTF8)
                        .add("USAGE")
                        .addKey(key)
                        .add("SAMPLES")
                        .add(0));
    }

    private static long usedMemory(RedisCommands<String, String> redis) {
        String info = redis.info("memory");
        return Long.parseLong(RedisCalls.parseInfo(info).get("used_memory"));
    }
}

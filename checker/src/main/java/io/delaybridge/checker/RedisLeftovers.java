package io.delaybridge.checker;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What the store still holds for an intake topic, read straight from Redis by key pattern (see docs/redis-store.md,
 * "Keys"): pending messages (due sets), in-flight entries, payloads, and orphan payloads (a payload whose member is
 * neither due nor in flight: nothing would ever deliver or delete it).
 */
record RedisLeftovers(long pending, long inFlight, long payloads, long orphans) {

    boolean empty() {
        return pending == 0 && inFlight == 0 && payloads == 0 && orphans == 0;
    }

    /** The sum over several servers, each holding whole shards (the masters of a cluster). */
    static RedisLeftovers read(java.util.List<String> redisUris, String keyPrefix, String intakeTopic) {
        RedisLeftovers sum = new RedisLeftovers(0, 0, 0, 0);
        for (String uri : redisUris) {
            RedisLeftovers one = read(uri, keyPrefix, intakeTopic);
            sum = new RedisLeftovers(
                    sum.pending + one.pending,
                    sum.inFlight + one.inFlight,
                    sum.payloads + one.payloads,
                    sum.orphans + one.orphans);
        }
        return sum;
    }

    static RedisLeftovers read(String redisUri, String keyPrefix, String intakeTopic) {
        RedisClient client = RedisClient.create(redisUri);
        try (StatefulRedisConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE)) {
            RedisCommands<byte[], byte[]> redis = connection.sync();
            String pattern = keyPrefix + ":{" + intakeTopic + ":*}:*";
            java.util.Set<String> shards = new java.util.TreeSet<>();
            ScanCursor cursor = ScanCursor.INITIAL;
            do {
                KeyScanCursor<byte[]> page =
                        redis.scan(cursor, ScanArgs.Builder.matches(pattern).limit(1000));
                for (byte[] key : page.getKeys()) {
                    String name = new String(key, StandardCharsets.UTF_8);
                    shards.add(name.substring(0, name.indexOf("}:") + 1));
                }
                cursor = page;
            } while (!cursor.isFinished());
            long pending = 0;
            long inFlight = 0;
            long payloads = 0;
            long orphans = 0;
            for (String base : shards) {
                byte[] msgKey = (base + ":msg").getBytes(StandardCharsets.UTF_8);
                byte[] inflight = (base + ":inflight").getBytes(StandardCharsets.UTF_8);
                // the due messages: in the lane of those stored before lanes, and in each target's lane
                List<byte[]> lanes = new ArrayList<>();
                lanes.add((base + ":due").getBytes(StandardCharsets.UTF_8));
                for (byte[] target : redis.zrange((base + ":lanes").getBytes(StandardCharsets.UTF_8), 0, -1)) {
                    lanes.add((base + ":due:" + new String(target, StandardCharsets.UTF_8))
                            .getBytes(StandardCharsets.UTF_8));
                }
                Set<String> due = new HashSet<>();
                for (byte[] lane : lanes) {
                    pending += redis.zcard(lane);
                    for (byte[] member : redis.zrange(lane, 0, -1)) {
                        due.add(Base64.getEncoder().encodeToString(member));
                    }
                }
                inFlight += redis.zcard(inflight);
                long size = redis.hlen(msgKey);
                payloads += size;
                if (size > 0) {
                    for (byte[] member : redis.hkeys(msgKey)) {
                        if (!due.contains(Base64.getEncoder().encodeToString(member))
                                && redis.zscore(inflight, member) == null) {
                            orphans++;
                        }
                    }
                }
            }
            return new RedisLeftovers(pending, inFlight, payloads, orphans);
        } finally {
            client.shutdown();
        }
    }
}

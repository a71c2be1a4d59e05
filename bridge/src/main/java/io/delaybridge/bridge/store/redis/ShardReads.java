package io.delaybridge.bridge.store.redis;

import static io.delaybridge.bridge.store.redis.RedisCalls.string;

import io.delaybridge.bridge.store.ClaimedMessage;
import io.delaybridge.bridge.store.MessageRef;
import io.delaybridge.bridge.store.ShardRouter;
import io.delaybridge.bridge.store.ShardStats;
import io.delaybridge.bridge.store.StoreConfigurationException;
import io.delaybridge.bridge.store.redis.RedisKeys.ShardKeys;
import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * The store's plain reads on the shared command connection: the intake's stored positions, a shard's earliest due
 * time and counts, and Redis' clock. {@link RedisDelayStore} delegates to it.
 */
final class ShardReads {

    private final StoreAccess access;
    private final RedisKeys keys;

    ShardReads(StoreAccess access) {
        this.access = access;
        this.keys = access.keys();
    }

    private RedisClusterAsyncCommands<byte[], byte[]> commands() {
        return access.commands();
    }

    Map<Integer, Long> positions(Collection<Integer> partitions) {
        // on a cluster the marks go into every shard (WritePlan.marks): the lowest one tells
        boolean cluster = access.connections().isCluster();
        List<int[]> asked = new ArrayList<>();
        List<RedisFuture<byte[]>> reads = new ArrayList<>();
        for (int partition : partitions) {
            int from = cluster ? 0 : keys.homeShard(partition);
            int to = cluster ? keys.shardCount() : from + 1;
            for (int shard = from; shard < to; shard++) {
                asked.add(new int[] {partition, shard});
                reads.add(commands().hget(keys.shard(shard).positions(), RedisCalls.bytes(partition)));
            }
        }
        Map<Integer, Long> positions = new TreeMap<>();
        for (int i = 0; i < reads.size(); i++) {
            int partition = asked.get(i)[0];
            byte[] key = keys.shard(asked.get(i)[1]).positions();
            byte[] value = access.await(
                    reads.get(i), "read the position of intake partition " + partition + " in " + string(key));
            if (value != null) {
                try {
                    positions.merge(partition, Long.parseLong(string(value)), Math::min);
                } catch (NumberFormatException e) {
                    throw new StoreConfigurationException(
                            "The position of intake partition " + partition + " in "
                                    + string(key) + " is '" + string(value)
                                    + "', not a number: was it written outside the"
                                    + " bridge? Delete the field.",
                            e);
                }
            }
        }
        return positions;
    }

    OptionalLong nextDueAt(int shard) {
        long first = firstDue(shard, "nextDueAt of shard " + shard);
        return first < 0 ? OptionalLong.empty() : OptionalLong.of(first);
    }

    /** The shard's earliest due time over its lanes (lanes.lua), -1 if none is due. */
    private long firstDue(int shard, String operation) {
        RedisFuture<List<ScoredValue<byte[]>>> old =
                commands().zrangeWithScores(keys.shard(shard).due(), 0, 0);
        RedisFuture<List<ScoredValue<byte[]>>> lanes = commands().zrangeWithScores(keys.lanes(shard), 0, 0);
        long first = -1;
        for (List<ScoredValue<byte[]>> head : List.of(access.await(old, operation), access.await(lanes, operation))) {
            if (!head.isEmpty() && (first < 0 || (long) head.get(0).getScore() < first)) {
                first = (long) head.get(0).getScore();
            }
        }
        return first;
    }

    /**
     * The keys that hold {@code shard}'s due messages: the lane of messages stored before lanes, then each target's
     * lane the index names (lanes.lua).
     */
    List<byte[]> dueKeys(int shard, String operation) {
        List<byte[]> dueKeys = new ArrayList<>();
        dueKeys.add(keys.shard(shard).due());
        for (byte[] target : access.await(commands().zrange(keys.lanes(shard), 0, -1), operation)) {
            dueKeys.add(keys.lane(shard, string(target)));
        }
        return dueKeys;
    }

    /** The key of the lane a message with this stored value waits in: its target's (lanes.lua). */
    byte[] laneOf(int shard, byte[] stored) {
        String target = StoredValue.target(stored);
        return target.isEmpty() ? keys.shard(shard).due() : keys.lane(shard, target);
    }

    /** See {@link io.delaybridge.bridge.store.DelayStore#peekAsync}: one HMGET of the shard's payloads. */
    CompletableFuture<List<ClaimedMessage>> peekAsync(int shard, List<String> ids) {
        if (ids.isEmpty()) {
            return CompletableFuture.completedFuture(List.of());
        }
        ShardRouter router = access.router();
        byte[][] members = new byte[ids.size()][];
        for (int i = 0; i < members.length; i++) {
            members[i] = router.member(ids.get(i));
        }
        return RedisCalls.translated(
                        commands().hmget(keys.shard(shard).msg(), members).toCompletableFuture(),
                        "peek at messages of shard " + shard)
                .thenApply(values -> {
                    List<ClaimedMessage> found = new ArrayList<>(values.size());
                    for (int i = 0; i < values.size(); i++) {
                        KeyValue<byte[], byte[]> value = values.get(i);
                        byte[] member = members[i];
                        found.add(
                                value == null || !value.hasValue()
                                        ? null
                                        : StoredValue.claimed(
                                                new MessageRef(ids.get(i), member),
                                                0,
                                                0,
                                                value.getValue(),
                                                () -> router.naturalOrigin(shard, member)));
                    }
                    return found;
                });
    }

    ShardStats stats(int shard) {
        ShardKeys k = keys.shard(shard);
        String operation = "stats of shard " + shard;
        RedisFuture<Long> inFlight = commands().zcard(k.inflight());
        List<RedisFuture<Long>> counts = new ArrayList<>();
        for (byte[] key : dueKeys(shard, operation)) {
            counts.add(commands().zcard(key));
        }
        long pending = 0;
        for (RedisFuture<Long> count : counts) {
            pending += access.await(count, operation);
        }
        return new ShardStats(shard, pending, access.await(inFlight, operation), firstDue(shard, operation));
    }

    /** Redis' clock ({@code TIME}) in epoch milliseconds. */
    long now() {
        List<byte[]> time = access.await(commands().time(), "TIME");
        return Long.parseLong(string(time.get(0))) * 1000 + Long.parseLong(string(time.get(1))) / 1000;
    }
}

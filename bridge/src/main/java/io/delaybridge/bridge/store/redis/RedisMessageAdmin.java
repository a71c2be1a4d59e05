package io.delaybridge.bridge.store.redis;

import io.delaybridge.bridge.store.MessageAdmin;
import io.delaybridge.bridge.store.ShardRouter;
import io.delaybridge.bridge.store.redis.RedisKeys.ShardKeys;
import io.delaybridge.bridge.store.redis.ScriptRunner.Script;
import io.lettuce.core.KeyValue;
import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * {@link MessageAdmin} on the Redis store: plain reads on the store's command connection, and {@code reschedule.lua}
 * for the one change it makes itself.
 */
public final class RedisMessageAdmin implements MessageAdmin {

    /** Codes of {@code reschedule.lua} beside the shared ones of {@link ScriptCodes}. */
    static final long RESCHEDULED = 7;

    static final long IN_FLIGHT = 8;

    private final StoreAccess access;
    private final ShardReads reads;
    private final RedisClusterAsyncCommands<byte[], byte[]> commands;
    private final RedisKeys keys;
    private final ShardRouter router;
    private final byte[] incarnation;

    /** On the store's command connection ({@link RedisDelayStore#messageAdmin()}). */
    RedisMessageAdmin(StoreAccess access, ShardReads reads) {
        this.access = access;
        this.reads = reads;
        this.commands = access.commands();
        this.keys = access.keys();
        this.router = access.router();
        this.incarnation = access.incarnation().getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public Optional<StoredMessage> inspect(String id) {
        ShardRouter.Placement placement = router.place(id);
        int shard = placement.shard();
        ShardKeys k = keys.shard(shard);
        byte[] member = placement.member();
        String operation = "inspect of message '" + id + "' on shard " + shard;
        RedisFuture<Double> lease = commands.zscore(k.inflight(), member);
        RedisFuture<byte[]> value = commands.hget(k.msg(), member);
        RedisFuture<byte[]> attempts = commands.hget(k.attempts(), member);
        Double leaseUntil = access.await(lease, operation);
        byte[] stored = access.await(value, operation);
        byte[] earlier = access.await(attempts, operation);
        // in its target's lane, or in the lane of messages stored before lanes
        Double dueAt =
                stored == null ? null : access.await(commands.zscore(reads.laneOf(shard, stored), member), operation);
        if (dueAt == null) {
            dueAt = access.await(commands.zscore(k.due(), member), operation);
        }
        if (dueAt == null && leaseUntil == null) {
            return Optional.empty();
        }
        // "<attempts>" or, parked by a rate cap (handback.lua), "<attempts>:<due>:<claimable from>"
        String[] attempt =
                earlier == null ? new String[] {"0"} : new String(earlier, StandardCharsets.UTF_8).split(":");
        long dueTime = dueAt != null ? dueAt.longValue() : -1;
        if (attempt.length == 3 && dueTime == Long.parseLong(attempt[2])) {
            dueTime = Long.parseLong(attempt[1]);
        }
        return Optional.of(new StoredMessage(
                id,
                shard,
                dueAt != null ? State.PENDING : State.IN_FLIGHT,
                dueTime,
                leaseUntil != null ? leaseUntil.longValue() : -1,
                Integer.parseInt(attempt[0]),
                stored == null ? null : StoredValue.envelope(stored, () -> router.naturalOrigin(shard, member))));
    }

    @Override
    public RescheduleResult reschedule(String id, long dueAt) {
        ShardRouter.Placement placement = router.place(id);
        int shard = placement.shard();
        ShardKeys k = keys.shard(shard);
        String operation = "reschedule of message '" + id + "' on shard " + shard;
        Long code = access.await(
                access.scripts()
                        .run(
                                commands,
                                Script.RESCHEDULE,
                                Script.RESCHEDULE.keys(k),
                                Script.RESCHEDULE.argv(
                                        placement.member(),
                                        bytes(Long.toString(dueAt)),
                                        bytes(k.wakeChannel()),
                                        incarnation,
                                        access.publish())),
                operation);
        if (code == RESCHEDULED) {
            return RescheduleResult.RESCHEDULED;
        } else if (code == IN_FLIGHT) {
            return RescheduleResult.IN_FLIGHT;
        } else if (code == ScriptCodes.NOT_FOUND) {
            return RescheduleResult.NOT_FOUND;
        }
        throw ScriptCodes.failure(code, "reschedule", shard, -1, id);
    }

    @Override
    public long countDue(int shard, long fromInclusive, long toExclusive) {
        if (toExclusive <= fromInclusive) {
            return 0;
        }
        String operation = "count of due messages on shard " + shard;
        Range<Long> range = Range.from(Range.Boundary.including(fromInclusive), Range.Boundary.excluding(toExclusive));
        List<RedisFuture<Long>> counts = new ArrayList<>();
        for (byte[] key : reads.dueKeys(shard, operation)) {
            counts.add(commands.zcount(key, range));
        }
        long count = 0;
        for (RedisFuture<Long> c : counts) {
            count += access.await(c, operation);
        }
        return count;
    }

    @Override
    public List<StoredMessage> scanDue(int shard, long fromInclusive, long toInclusive, long skip, int max) {
        ShardKeys k = keys.shard(shard);
        String operation = "scan of due messages on shard " + shard;
        // every lane's first skip + max in the range, merged in due order (a sort keeps each lane's order)
        List<RedisFuture<List<ScoredValue<byte[]>>>> ranges = new ArrayList<>();
        for (byte[] key : reads.dueKeys(shard, operation)) {
            ranges.add(commands.zrangebyscoreWithScores(
                    key, Range.create(fromInclusive, toInclusive), Limit.create(0, skip + max)));
        }
        List<ScoredValue<byte[]>> merged = new ArrayList<>();
        for (RedisFuture<List<ScoredValue<byte[]>>> read : ranges) {
            merged.addAll(access.await(read, operation));
        }
        merged.sort(Comparator.comparingDouble(ScoredValue::getScore));
        List<ScoredValue<byte[]>> members =
                merged.subList((int) Math.min(skip, merged.size()), (int) Math.min(skip + max, merged.size()));
        if (members.isEmpty()) {
            return List.of();
        }
        byte[][] fields = members.stream().map(ScoredValue::getValue).toArray(byte[][]::new);
        List<KeyValue<byte[], byte[]>> values = access.await(commands.hmget(k.msg(), fields), operation);
        List<StoredMessage> found = new ArrayList<>(members.size());
        for (int i = 0; i < members.size(); i++) {
            KeyValue<byte[], byte[]> value = values.get(i);
            byte[] member = members.get(i).getValue();
            found.add(new StoredMessage(
                    router.idOf(shard, member),
                    shard,
                    State.PENDING,
                    (long) members.get(i).getScore(),
                    -1,
                    0,
                    value.hasValue()
                            ? StoredValue.envelope(value.getValue(), () -> router.naturalOrigin(shard, member))
                            : null));
        }
        return found;
    }

    @Override
    public OptionalLong farDrop(String id) {
        ShardRouter.Placement place = router.place(id);
        if (place.offset() < 0) {
            return OptionalLong.empty();
        }
        Double score = access.await(
                commands.zscore(keys.shard(place.shard()).farGone(), place.member()), "far drop of '" + id + "'");
        return score == null ? OptionalLong.empty() : OptionalLong.of(score.longValue());
    }

    @Override
    public OptionalLong epoch(int shard) {
        byte[] epoch = access.await(commands.get(keys.shard(shard).epoch()), "epoch of shard " + shard);
        return epoch == null
                ? OptionalLong.empty()
                : OptionalLong.of(Long.parseLong(new String(epoch, StandardCharsets.UTF_8)));
    }

    @Override
    public OptionalLong earliestLease(int shard) {
        List<ScoredValue<byte[]>> first = access.await(
                commands.zrangeWithScores(keys.shard(shard).inflight(), 0, 0), "earliest lease of shard " + shard);
        return first.isEmpty()
                ? OptionalLong.empty()
                : OptionalLong.of((long) first.get(0).getScore());
    }

    /**
     * Writes a probe field into the meta hash and, on a cluster, a probe key beside one shard per master (nothing of
     * the messages is touched): a master that refuses writes fails the probe with its address and the shards it
     * holds.
     */
    @Override
    public void probeWrite() {
        access.await(
                commands.hset(keys.meta(), bytes("health-probe"), bytes(Long.toString(reads.now()))),
                "health probe write to " + new String(keys.meta(), StandardCharsets.UTF_8) + " on Redis "
                        + access.connections().nodeOf(keys.meta()));
        if (access.connections().mode() != RedisMode.CLUSTER) {
            return;
        }
        java.util.Map<String, List<Integer>> shardsByNode = new java.util.TreeMap<>();
        for (int shard = 0; shard < keys.shardCount(); shard++) {
            shardsByNode
                    .computeIfAbsent(access.nodeOf(shard), n -> new ArrayList<>())
                    .add(shard);
        }
        List<RedisFuture<String>> probes = new ArrayList<>();
        for (List<Integer> shards : shardsByNode.values()) {
            probes.add(commands.set(keys.probe(shards.get(0)), bytes(Long.toString(reads.now()))));
        }
        int i = 0;
        for (java.util.Map.Entry<String, List<Integer>> node : shardsByNode.entrySet()) {
            access.await(
                    probes.get(i++),
                    "health probe write on Redis " + node.getKey() + " (shards " + node.getValue() + ")");
        }
    }

    @Override
    public String incarnationProblem() {
        Optional<String> current = StoreMeta.current(access.connections(), keys);
        if (current.isEmpty()) {
            return "the meta hash " + new String(keys.meta(), StandardCharsets.UTF_8) + " is gone: Redis lost the"
                    + " store's data (flushed, or restarted without its AOF)";
        }
        if (!current.get().equals(access.incarnation())) {
            return "Redis holds incarnation " + current.get() + " but this bridge connected to " + access.incarnation()
                    + ": Redis lost the data and was initialised again";
        }
        String problem = StoreMeta.shardProblem(access.connections(), keys, incarnation);
        if (problem != null) {
            return problem + ", not " + access.incarnation() + ": that Redis node lost its data";
        }
        return null;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}

package io.delaybridge.bridge.store.redis;

import static io.delaybridge.bridge.store.redis.RedisCalls.bytes;

import io.delaybridge.bridge.store.ExpressCheck;
import io.delaybridge.bridge.store.PositionMark;
import io.delaybridge.bridge.store.ShardRouter;
import io.delaybridge.bridge.store.WriteOp;
import io.delaybridge.bridge.store.redis.RedisKeys.ShardKeys;
import io.delaybridge.bridge.store.redis.ScriptRunner.Script;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Turns an intake write batch into script calls, without talking to Redis: the schedules of a shard go into one
 * {@code schedule.lua} call (up to {@link #MAX_SCHEDULES_PER_CALL} messages, {@link #MAX_BYTES_PER_CALL} bytes) until a
 * cancel of that shard comes, which closes it. A call is placed where its first operation stood, and every id lives in
 * one shard, so Redis applies the operations of each id in batch order.
 */
final class WritePlan {

    /** Bounds one {@code schedule.lua} call: Redis runs a script alone, so a long one delays every other client. */
    static final int MAX_SCHEDULES_PER_CALL = 256;

    static final int MAX_BYTES_PER_CALL = 1 << 20;

    /**
     * One script call: a cancel, or the schedules of one shard that follow each other in the batch ({@code ops}, at
     * {@code positions} of the batch).
     */
    record Call(List<WriteOp> ops, int[] positions, int shard, Script script, byte[][] keys, byte[][] args) {
        String describe() {
            if (script == Script.MARK) {
                return "position mark on shard " + shard;
            }
            return (script == Script.SCHEDULE ? "schedule" : "cancel") + " of message '"
                    + ops.get(0).id() + "'" + (ops.size() > 1 ? " and " + (ops.size() - 1) + " more" : "")
                    + " on shard " + shard;
        }
    }

    /**
     * One {@code express.lua} call: the express checks of one shard ({@code checks}, at {@code positions} of the
     * batch's checks).
     */
    record Check(List<ExpressCheck> checks, int[] positions, int shard, byte[][] keys, byte[][] args) {
        String describe() {
            return "express check of message '" + checks.get(0).id() + "'"
                    + (checks.size() > 1 ? " and " + (checks.size() - 1) + " more" : "") + " on shard " + shard;
        }
    }

    private final RedisKeys keys;
    private final ShardRouter router;
    private final byte[] incarnation;
    private final byte[] publish;

    /**
     * @param incarnation the incarnation the store connected to: the scripts refuse to write into a shard without it
     * @param publishCommand {@code PUBLISH} or {@code SPUBLISH}, for the scripts' wake-ups
     */
    WritePlan(RedisKeys keys, ShardRouter router, String incarnation, String publishCommand) {
        this.keys = keys;
        this.router = router;
        this.incarnation = bytes(incarnation);
        this.publish = bytes(publishCommand);
    }

    List<Call> plan(List<WriteOp> ops) {
        Map<Integer, ScheduleCall> open = new HashMap<>();
        List<Object> order = new ArrayList<>(); // ScheduleCall or Call, in order of first operation
        for (int position = 0; position < ops.size(); position++) {
            WriteOp op = ops.get(position);
            ShardRouter.Placement placement = router.place(op.id());
            int shard = placement.shard();
            if (op instanceof WriteOp.Schedule schedule) {
                ScheduleCall call = open.get(shard);
                if (call == null || call.full()) {
                    call = new ScheduleCall(shard);
                    open.put(shard, call);
                    order.add(call);
                }
                call.add(position, schedule, placement);
            } else {
                open.remove(shard);
                order.add(cancel(position, (WriteOp.Cancel) op, placement));
            }
        }
        List<Call> calls = new ArrayList<>(order.size());
        for (Object call : order) {
            calls.add(call instanceof ScheduleCall s ? s.toCall() : (Call) call);
        }
        return calls;
    }

    /**
     * The {@code mark.lua} calls that go behind the batch's calls: each mark into its partition's home shard ({@link
     * RedisKeys#homeShard}), one call per shard; with {@code everyShard} (a Redis Cluster, where the batch's explicit
     * ids may live on other masters) every mark into every shard, one call per shard. A mark call's {@code positions}
     * are the indexes of the marks it carries, in {@code marks}.
     */
    List<Call> marks(List<PositionMark> marks, boolean everyShard) {
        Map<Integer, List<Integer>> byShard = new TreeMap<>();
        for (int i = 0; i < marks.size(); i++) {
            if (everyShard) {
                for (int shard = 0; shard < keys.shardCount(); shard++) {
                    byShard.computeIfAbsent(shard, s -> new ArrayList<>()).add(i);
                }
            } else {
                byShard.computeIfAbsent(keys.homeShard(marks.get(i).partition()), s -> new ArrayList<>())
                        .add(i);
            }
        }
        List<Call> calls = new ArrayList<>(byShard.size());
        byShard.forEach((shard, indexes) -> {
            ShardKeys k = keys.shard(shard);
            byte[][] args = new byte[1 + 3 * indexes.size()][];
            args[0] = incarnation;
            int a = 1;
            for (int index : indexes) {
                PositionMark mark = marks.get(index);
                args[a++] = Decimal.ascii(mark.partition());
                args[a++] = mark.expected() == PositionMark.UNKNOWN ? new byte[0] : Decimal.ascii(mark.expected());
                args[a++] = Decimal.ascii(mark.next());
            }
            calls.add(new Call(
                    List.of(),
                    indexes.stream().mapToInt(Integer::intValue).toArray(),
                    shard,
                    Script.MARK,
                    Script.MARK.keys(k),
                    Script.MARK.argvRepeated(args)));
        });
        return calls;
    }

    /** One {@code express.lua} call per shard, in order of each shard's first check. */
    List<Check> planChecks(List<ExpressCheck> checks) {
        Map<Integer, List<Integer>> byShard = new LinkedHashMap<>();
        Map<Integer, List<byte[]>> members = new HashMap<>(); // each list starts with the incarnation argument
        for (int position = 0; position < checks.size(); position++) {
            ShardRouter.Placement placement = router.place(checks.get(position).id());
            byShard.computeIfAbsent(placement.shard(), s -> new ArrayList<>()).add(position);
            members.computeIfAbsent(placement.shard(), s -> new ArrayList<>(List.of(incarnation)))
                    .add(placement.member());
        }
        List<Check> calls = new ArrayList<>(byShard.size());
        byShard.forEach((shard, positions) -> {
            ShardKeys k = keys.shard(shard);
            calls.add(new Check(
                    positions.stream().map(checks::get).toList(),
                    positions.stream().mapToInt(Integer::intValue).toArray(),
                    shard,
                    Script.EXPRESS.keys(k),
                    Script.EXPRESS.argvRepeated(members.get(shard).toArray(byte[][]::new))));
        });
        return calls;
    }

    private Call cancel(int position, WriteOp.Cancel cancel, ShardRouter.Placement placement) {
        return new Call(
                List.of(cancel),
                new int[] {position},
                placement.shard(),
                Script.CANCEL,
                Script.CANCEL.keys(keys.shard(placement.shard())),
                Script.CANCEL.argv(
                        placement.member(),
                        incarnation,
                        timestampArg(cancel.timestamp()),
                        timestampArg(cancel.forgetBefore())));
    }

    /** An unknown timestamp travels as an empty argument: the scripts then neither remember nor suppress. */
    private static byte[] timestampArg(long timestamp) {
        return timestamp == WriteOp.NO_TIMESTAMP ? new byte[0] : Decimal.ascii(timestamp);
    }

    /** The schedules of one shard that go into one {@code schedule.lua} call. */
    private final class ScheduleCall {
        private final int shard;
        private final List<WriteOp> ops = new ArrayList<>();
        private final List<Integer> positions = new ArrayList<>();
        private final List<byte[]> args = new ArrayList<>(4 + 5 * 64);
        private int bytes;

        ScheduleCall(int shard) {
            this.shard = shard;
            args.add(bytes(keys.shard(shard).wakeChannel()));
            args.add(incarnation);
            // the origin of a default id's own record, without its offset: schedule.lua orders versions by it
            args.add(bytes(router.intakeTopic() + "/" + shard));
            args.add(publish);
        }

        boolean full() {
            return ops.size() >= MAX_SCHEDULES_PER_CALL || bytes >= MAX_BYTES_PER_CALL;
        }

        void add(int position, WriteOp.Schedule schedule, ShardRouter.Placement placement) {
            boolean natural = router.isNaturalOrigin(placement, schedule.origin());
            String token = natural ? "" : StoredValue.token(schedule.origin(), schedule.timestamp());
            byte[] header = StoredValue.header(token);
            byte[] value = StoredValue.encode(header, schedule.envelope(), natural ? schedule.origin() : null);
            args.add(placement.member());
            args.add(Decimal.ascii(schedule.dueAt()));
            args.add(header);
            args.add(value);
            args.add(timestampArg(schedule.timestamp()));
            ops.add(schedule);
            positions.add(position);
            bytes += value.length;
        }

        Call toCall() {
            return new Call(
                    List.copyOf(ops),
                    positions.stream().mapToInt(Integer::intValue).toArray(),
                    shard,
                    Script.SCHEDULE,
                    Script.SCHEDULE.keys(keys.shard(shard)),
                    Script.SCHEDULE.argvRepeated(args.toArray(byte[][]::new)));
        }
    }
}

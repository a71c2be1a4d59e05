package io.delaybridge.bridge.store.redis;

import static io.delaybridge.bridge.store.redis.RedisCalls.bytes;

import io.delaybridge.bridge.store.ExpressCheck;
import io.delaybridge.bridge.store.FarEntry;
import io.delaybridge.bridge.store.FarHour;
import io.delaybridge.bridge.store.FarStore;
import io.delaybridge.bridge.store.PositionMark;
import io.delaybridge.bridge.store.ShardRouter;
import io.delaybridge.bridge.store.WriteOp;
import io.delaybridge.bridge.store.redis.RedisKeys.ShardKeys;
import io.delaybridge.bridge.store.redis.ScriptRunner.Script;
import io.delaybridge.schemas.IntakeOrigin;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.IntToLongFunction;

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

    /** The thaw argument of the intake's own writes; a thaw gives the owner's epoch or {@link #ADMIN}. */
    private static final byte[] INTAKE = new byte[0];

    private static final byte[] ADMIN = bytes("admin");
    private static final byte[] EMPTY = new byte[0];

    /** An unknown timestamp in a far version (6 bytes of ones). */
    static final long UNKNOWN_TIMESTAMP = (1L << 48) - 1;

    private final RedisKeys keys;
    private final ShardRouter router;
    private final byte[] incarnation;
    private final byte[] publish;
    /** Shard -> the epoch the writing instance holds for it, negative if none: its writes are fenced by it. */
    private volatile IntToLongFunction fences = shard -> -1;

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

    /**
     * Fences the intake's writes ({@link #plan}) from now on: a schedule call into a shard for which {@code fences}
     * gives an epoch (not negative) is refused as {@code FENCED} unless the shard still holds that epoch.
     */
    void fenceWrites(IntToLongFunction fences) {
        this.fences = fences;
    }

    /** The epoch the intake's writes into {@code shard} are fenced by now ({@link #fenceWrites}); negative if none. */
    long fence(int shard) {
        return fences.applyAsLong(shard);
    }

    List<Call> plan(List<WriteOp> ops) {
        return plan(ops, fences);
    }

    /** The calls of {@code ops}, each schedule call into a shard fenced by {@code fences}' epoch for it. */
    List<Call> plan(List<WriteOp> ops, IntToLongFunction fences) {
        Map<Integer, ScheduleCall> open = new HashMap<>();
        List<Object> order = new ArrayList<>(); // ScheduleCall or Call, in order of first operation
        for (int position = 0; position < ops.size(); position++) {
            WriteOp op = ops.get(position);
            ShardRouter.Placement placement = router.place(op.id());
            int shard = placement.shard();
            if (op instanceof WriteOp.Schedule schedule) {
                ScheduleCall call = open.get(shard);
                if (call == null || call.full()) {
                    call = new ScheduleCall(shard, INTAKE, fences.applyAsLong(shard));
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
                args[a++] = bytes(mark.partition());
                args[a++] = mark.expected() == PositionMark.UNKNOWN ? new byte[0] : bytes(mark.expected());
                args[a++] = bytes(mark.next());
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
            ExpressCheck check = checks.get(position);
            ShardRouter.Placement placement = router.place(check.id());
            byShard.computeIfAbsent(placement.shard(), s -> new ArrayList<>()).add(position);
            members.computeIfAbsent(placement.shard(), s -> new ArrayList<>(List.of(incarnation)))
                    .addAll(List.of(placement.member(), bytes(Long.toString(FarEntry.hourOf(check.dueAt())))));
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
        int shard = placement.shard();
        List<byte[]> ids = placement.offset() < 0 ? List.of(keys.farIds(shard, placement.member())) : List.of();
        return new Call(
                List.of(cancel),
                new int[] {position},
                shard,
                Script.CANCEL,
                Script.CANCEL.signature().keysOf(keys.shard(shard), ids),
                Script.CANCEL.argv(
                        placement.member(),
                        incarnation,
                        timestampArg(cancel.timestamp()),
                        timestampArg(cancel.forgetBefore())));
    }

    /** An unknown timestamp travels as an empty argument: the scripts then neither remember nor suppress. */
    private static byte[] timestampArg(long timestamp) {
        return timestamp == WriteOp.NO_TIMESTAMP ? new byte[0] : bytes(timestamp);
    }

    /**
     * The {@code schedule.lua} calls that thaw {@code records} of {@code shard}: records read back from the intake,
     * stored hot unless the far tier no longer holds them, under {@code epoch} ({@link FarStore#ADMIN}: unfenced).
     */
    List<Call> thaw(int shard, long epoch, List<WriteOp.Schedule> records) {
        return thaw(shard, epoch, records, -1, null);
    }

    /**
     * The calls of an owner's thaw of records read from {@code hour}'s entries: as {@link #thaw(int, long, List)}, and
     * each record's {@code slots} (parallel to {@code records}) are compared and marked thawed by the call that stores
     * it. {@code slots} null: an operator's thaw, which marks nothing.
     */
    List<Call> thaw(int shard, long epoch, List<WriteOp.Schedule> records, long hour, List<List<FarHour.Slot>> slots) {
        if (slots != null && slots.size() != records.size()) {
            throw new IllegalArgumentException(
                    "thaw of shard " + shard + ": " + records.size() + " records but " + slots.size() + " slot lists");
        }
        byte[] thaw = epoch == FarStore.ADMIN ? ADMIN : bytes(epoch);
        List<Call> calls = new ArrayList<>();
        ScheduleCall call = null;
        for (int position = 0; position < records.size(); position++) {
            WriteOp.Schedule record = records.get(position);
            ShardRouter.Placement placement = router.place(record.id());
            if (placement.shard() != shard || record.far()) {
                throw new IllegalArgumentException("thaw of shard " + shard + ": message '" + record.id() + "' "
                        + (record.far() ? "is marked far" : "lives in shard " + placement.shard()));
            }
            if (call == null || call.full()) {
                if (call != null) {
                    calls.add(call.toCall());
                }
                call = new ScheduleCall(shard, thaw, -1); // a thaw is fenced by its own epoch
            }
            call.add(position, record, placement);
            if (slots != null) {
                call.marks(hour, slots.get(position));
            }
        }
        if (call != null) {
            calls.add(call.toCall());
        }
        return calls;
    }

    /** The 12-byte far entry of a far record: its intake partition and offset, and its due time. */
    static FarEntry farEntry(WriteOp.Schedule schedule) {
        IntakeOrigin origin = schedule.origin();
        return new FarEntry(origin.partition(), origin.offset(), schedule.dueAt());
    }

    /**
     * An explicit id's far version, 20 bytes: intake partition (2), offset (6), timestamp (6; all ones: unknown), due
     * time (6). The intake sends a record of unknown timestamp hot, but the store takes it either way.
     */
    static byte[] farVersion(FarEntry entry, long timestamp) {
        if (timestamp < 0 || timestamp >= UNKNOWN_TIMESTAMP) {
            timestamp = UNKNOWN_TIMESTAMP;
        }
        return ByteBuffer.allocate(20)
                .putShort((short) entry.partition())
                .putShort((short) (entry.offset() >>> 32))
                .putInt((int) entry.offset())
                .putShort((short) (timestamp >>> 32))
                .putInt((int) timestamp)
                .putShort((short) (entry.dueAt() >>> 32))
                .putInt((int) entry.dueAt())
                .array();
    }

    /** The schedules of one shard that go into one {@code schedule.lua} call. */
    private final class ScheduleCall {
        private final int shard;
        private final List<WriteOp> ops = new ArrayList<>();
        private final List<Integer> positions = new ArrayList<>();
        private final List<byte[]> args = new ArrayList<>(6 + 10 * 64);
        /** The far keys the call names (KEYS[10..]), by name: each once. */
        private final Map<String, Integer> farKeyIndex = new HashMap<>();

        private final List<byte[]> farKeys = new ArrayList<>();
        private final boolean thawing;
        private int bytes;

        /** {@code fence}: the epoch the shard must hold for an intake write, negative for none. */
        ScheduleCall(int shard, byte[] thaw, long fence) {
            this.shard = shard;
            this.thawing = thaw != INTAKE;
            args.add(bytes(keys.shard(shard).wakeChannel()));
            args.add(incarnation);
            // the origin of a default id's own record, without its offset: schedule.lua orders versions by it
            args.add(bytes(router.intakeTopic() + "/" + shard));
            args.add(publish);
            args.add(thaw);
            args.add(fence < 0 ? EMPTY : bytes(fence));
        }

        boolean full() {
            return ops.size() >= MAX_SCHEDULES_PER_CALL || bytes >= MAX_BYTES_PER_CALL;
        }

        void add(int position, WriteOp.Schedule schedule, ShardRouter.Placement placement) {
            boolean natural = router.isNaturalOrigin(placement, schedule.origin());
            String token = natural ? "" : StoredValue.token(schedule.origin().toString(), schedule.timestamp());
            byte[] header = StoredValue.header(token);
            boolean explicit = placement.offset() < 0;
            byte[] value = schedule.far()
                    ? EMPTY
                    : StoredValue.encode(
                            header,
                            schedule.envelope(),
                            natural ? schedule.origin().toString() : null);
            args.add(placement.member());
            args.add(bytes(schedule.dueAt()));
            args.add(header);
            args.add(value);
            args.add(timestampArg(schedule.timestamp()));
            // a far record's entry; a thawed explicit id's version, which must still be the id's far version
            FarEntry entry = schedule.far() || (explicit && thawing) ? farEntry(schedule) : null;
            if (schedule.far()) {
                args.add(FarIndex.encode(entry));
                args.add(farKey(keys.farHour(shard, entry.hour())));
            } else {
                args.add(EMPTY);
                args.add(EMPTY);
            }
            if (explicit) {
                args.add(entry == null ? EMPTY : farVersion(entry, schedule.timestamp()));
                args.add(farKey(keys.farIds(shard, placement.member())));
            } else {
                args.add(EMPTY);
                args.add(EMPTY);
            }
            args.add(EMPTY); // marks: set by marks() for an owner's thaw
            ops.add(schedule);
            positions.add(position);
            bytes += value.length;
        }

        /**
         * The entries of {@code hour} the message just added was read for: its hour key (the {@code hourkey} argument,
         * unused by a hot message) and its marks, 16 bytes each ({@link FarIndex#mark}).
         */
        void marks(long hour, List<FarHour.Slot> slots) {
            if (slots.isEmpty()) {
                throw new IllegalArgumentException("a thawed record comes from at least one far entry");
            }
            byte[] marks = new byte[slots.size() * 16];
            for (int i = 0; i < slots.size(); i++) {
                if (slots.get(i).entry().hour() != hour) {
                    throw new IllegalArgumentException(
                            "far entry " + slots.get(i) + " is not of the thawed hour " + hour);
                }
                System.arraycopy(FarIndex.mark(slots.get(i)), 0, marks, i * 16, 16);
            }
            int end = args.size();
            args.set(end - 4, farKey(keys.farHour(shard, hour))); // hourkey
            args.set(end - 1, marks);
        }

        /** The index in KEYS (1-based, after the 9 fixed keys) of a far key, added on first use. */
        private byte[] farKey(byte[] key) {
            Integer index = farKeyIndex.computeIfAbsent(new String(key, StandardCharsets.UTF_8), k -> {
                farKeys.add(key);
                return Script.SCHEDULE.signature().keys().size() + farKeys.size();
            });
            return bytes(index);
        }

        Call toCall() {
            return new Call(
                    List.copyOf(ops),
                    positions.stream().mapToInt(Integer::intValue).toArray(),
                    shard,
                    Script.SCHEDULE,
                    Script.SCHEDULE.signature().keysOf(keys.shard(shard), farKeys),
                    Script.SCHEDULE.argvRepeated(args.toArray(byte[][]::new)));
        }
    }
}

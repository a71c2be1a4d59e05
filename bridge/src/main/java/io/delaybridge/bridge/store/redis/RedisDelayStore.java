package io.delaybridge.bridge.store.redis;

import io.delaybridge.bridge.store.ClaimBatch;
import io.delaybridge.bridge.store.ClaimedMessage;
import io.delaybridge.bridge.store.DelayStore;
import io.delaybridge.bridge.store.MessageRef;
import io.delaybridge.bridge.store.ShardRouter;
import io.delaybridge.bridge.store.ShardStats;
import io.delaybridge.bridge.store.StoreConfigurationException;
import io.delaybridge.bridge.store.StoreDataLostException;
import io.delaybridge.bridge.store.StoreException;
import io.delaybridge.bridge.store.StoreUnavailableException;
import io.delaybridge.bridge.store.WakeListener;
import io.delaybridge.bridge.store.WriteOp;
import io.delaybridge.bridge.store.WriteResult;
import io.delaybridge.bridge.store.redis.RedisKeys.ShardKeys;
import io.delaybridge.bridge.store.redis.ScriptRunner.Script;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.protocol.ProtocolVersion;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.SetArgs;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.protocol.RedisCommand;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link DelayStore} on Redis: per shard a due zset, a payload hash, an in-flight zset, an attempts hash and a
 * fencing epoch, all under one hash tag ({@link RedisKeys}); every state change is one Lua script ({@link
 * ScriptRunner}, {@code lua/*.lua}).
 *
 * <pre>{@code
 * try (RedisDelayStore store = RedisDelayStore.connect(
 *         RedisStoreOptions.of("redis://127.0.0.1:6379", "delay-intake", 8))) {
 *     store.write(List.of(new WriteOp.Schedule("order-42", dueAt, "delay-intake/3/17", envelope))).get();
 *     long epoch = store.acquire(store.router().shardOf("order-42"));
 *     ...
 * }
 * }</pre>
 *
 * <h2>Connections and threads</h2>
 *
 * <ul>
 *   <li>A command connection, shared by every thread, for the pump's calls ({@link #claim}, {@link #ack}, {@link
 *       #retry}, {@link #reclaim}, {@link #acquire}) and the inspections. These calls block the calling thread until
 *       Redis answers or the command timeout passes; they are safe to call concurrently. {@link #claimAsync} and
 *       {@link #ackAsync} do not block: calls issued one after the other travel pipelined.
 *   <li>A pipeline connection with auto-flush off, only for {@link #write}: each batch is queued and flushed at once
 *       under a lock (a synchronous call on such a connection would hang, and two batches must not interleave). A
 *       batch becomes one {@code schedule.lua} call per shard (up to {@value #MAX_SCHEDULES_PER_CALL} messages) and
 *       one {@code cancel.lua} call per cancel, in an order that keeps each id's operations in batch order.
 *       {@code write} does not block: its future completes on a Lettuce I/O thread, so do not block in callbacks
 *       chained to it.
 *   <li>A pub/sub connection subscribed to every shard's wake channel; {@link WakeListener}s run on a Lettuce I/O
 *       thread and must return quickly (signal a condition, do not call the store).
 * </ul>
 *
 * <h2>Durability</h2>
 *
 * A write's reply comes after Redis wrote it to its AOF (with {@code appendfsync always}, after the fsync); with
 * {@code waitReplicas > 0} the batch also waits for that many replicas. Start-up refuses a {@code maxmemory-policy}
 * other than {@code noeviction} and warns about weaker persistence settings.
 *
 * <h2>Data loss detection</h2>
 *
 * The first start writes a random incarnation id into the meta hash and a copy into every shard. {@code schedule} and
 * {@code cancel} check the copy: a Redis that lost its data fails them with {@link StoreDataLostException} instead of
 * silently starting over. A bridge that starts against an empty Redis cannot tell by itself: compare {@link
 * #incarnation()} with the one recorded beside the intake's committed offsets.
 */
public final class RedisDelayStore implements DelayStore {

    private static final Logger LOG = LoggerFactory.getLogger(RedisDelayStore.class);
    /**
     * The most in-flight messages one acquire hands back to the due set: Redis runs a script alone, and ~10,000
     * members take it a few ms. More than that are left in flight by an owner only with pump.maxInFlight raised.
     */
    static final int HANDOVER_LIMIT = 10_000;
    private static final int MIN_REDIS_MAJOR = 5;

    private final RedisStoreOptions options;
    private final ClientResources resources;
    private final RedisClient client;
    private final StatefulRedisConnection<byte[], byte[]> commandConnection;
    private final RedisAsyncCommands<byte[], byte[]> commands;
    private final StatefulRedisConnection<byte[], byte[]> pipelineConnection;
    private final RedisAsyncCommands<byte[], byte[]> pipeline;
    private final Object pipelineLock = new Object();
    /** Write batches dispatched on the pipeline connection so far. Guarded by {@code pipelineLock}. */
    private long dispatched;
    private final StatefulRedisPubSubConnection<String, String> pubSub;
    private final ScriptRunner scripts;
    private final RedisKeys keys;
    private final ShardRouter router;
    private final String incarnation;
    private final byte[] incarnationBytes;
    private final List<WakeListener> wakeListeners = new CopyOnWriteArrayList<>();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final long awaitMillis;

    private RedisDelayStore(Connected c, RedisKeys keys, String incarnation) {
        this.options = c.options;
        this.resources = c.resources;
        this.client = c.client;
        this.commandConnection = c.commandConnection;
        this.commands = c.commandConnection.async();
        this.pipelineConnection = c.pipelineConnection;
        this.pipeline = c.pipelineConnection.async();
        this.pubSub = c.pubSub;
        this.scripts = c.scripts;
        this.keys = keys;
        this.router = new ShardRouter(options.intakeTopic(), keys.shardCount());
        this.incarnation = incarnation;
        this.incarnationBytes = bytes(incarnation);
        // a backstop above Lettuce's own command timeout, which fails the future first
        this.awaitMillis = options.commandTimeout().toMillis() * 2 + 1_000;
    }

    /**
     * Connects, checks the Redis configuration, loads the scripts, initialises the store on first use (shard count,
     * incarnation) and subscribes to the wake channels.
     *
     * @throws StoreUnavailableException if Redis cannot be reached
     * @throws StoreConfigurationException if Redis is configured so that the store cannot keep its guarantees
     * @throws StoreDataLostException if a shard lost the data of this store
     */
    public static RedisDelayStore connect(RedisStoreOptions options) {
        return connect(options, Clock.systemUTC());
    }

    /** As {@link #connect(RedisStoreOptions)}; {@code clock} only stamps the creation time of a new store. */
    public static RedisDelayStore connect(RedisStoreOptions options, Clock clock) {
        Connected c = Connected.open(options);
        try {
            checkServer(c);
            await(c.scripts.loadAll(c.commandConnection.async()), "SCRIPT LOAD at " + options.redactedUri(),
                    c.awaitMillis());
            Meta meta = initialise(c, clock);
            RedisKeys keys = new RedisKeys(options.keyPrefix(), options.intakeTopic(), meta.shards);
            prepareShards(c, keys, meta);
            RedisDelayStore store = new RedisDelayStore(c, keys, meta.incarnation);
            store.subscribeWakeChannels();
            LOG.info("Redis store at {} ready: intake topic {}, {} shards, key prefix {}, incarnation {}",
                    options.redactedUri(), options.intakeTopic(), meta.shards, options.keyPrefix(), meta.incarnation);
            return store;
        } catch (RuntimeException e) {
            c.close();
            throw e;
        }
    }

    /** The store's incarnation: a random id created with the store. A different value means Redis lost the data. */
    @Override
    public String incarnation() {
        return incarnation;
    }

    /**
     * The incarnation Redis holds now, read from the meta hash; empty if the meta hash is gone (Redis lost its data).
     * For health checks: compare with {@link #incarnation()}.
     */
    public Optional<String> currentIncarnation() {
        List<io.lettuce.core.KeyValue<byte[], byte[]>> values =
                await(commands.hmget(keys.meta(), bytes("incarnation")), "read incarnation");
        if (values.isEmpty() || !values.get(0).hasValue()) {
            return Optional.empty();
        }
        return Optional.of(string(values.get(0).getValue()));
    }

    /** The router of this store: which shard and member an id has. */
    public ShardRouter router() {
        return router;
    }

    /** The key names of this store. */
    public RedisKeys keys() {
        return keys;
    }

    @Override
    public int shardCount() {
        return keys.shardCount();
    }

    // ----------------------------------------------------------------------------------------------- intake writes

    @Override
    public CompletableFuture<List<WriteResult>> write(List<WriteOp> ops) {
        if (ops.isEmpty()) {
            return CompletableFuture.completedFuture(List.of());
        }
        List<PreparedWrite> prepared = prepare(ops);
        CompletableFuture<List<WriteResult>> result = new CompletableFuture<>();
        try {
            runBatch(prepared, 0, new WriteResult[ops.size()], -1, result);
        } catch (RuntimeException e) {
            result.completeExceptionally(RedisErrors.translate(e, "write of " + ops.size() + " operations"));
        }
        return result;
    }

    /**
     * One script call: a cancel, or the schedules of one shard that follow each other in the batch ({@code ops}, at
     * {@code positions} of the batch).
     */
    private record PreparedWrite(List<WriteOp> ops, int[] positions, int shard, Script script, byte[][] keys,
            byte[][] args) {
        String describe() {
            return (script == Script.SCHEDULE ? "schedule" : "cancel") + " of message '" + ops.get(0).id() + "'"
                    + (ops.size() > 1 ? " and " + (ops.size() - 1) + " more" : "") + " on shard " + shard;
        }
    }

    /**
     * Turns a batch into script calls: the schedules of a shard go into one {@code schedule.lua} call (up to {@link
     * #MAX_SCHEDULES_PER_CALL} messages, {@link #MAX_BYTES_PER_CALL} bytes) until a cancel of that shard comes,
     * which closes it. A call is placed where its first operation stood, and every id lives in one shard, so Redis
     * applies the operations of each id in batch order.
     */
    private List<PreparedWrite> prepare(List<WriteOp> ops) {
        Map<Integer, ScheduleCall> open = new HashMap<>();
        List<Object> order = new ArrayList<>(); // ScheduleCall or PreparedWrite, in order of first operation
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
                order.add(prepareCancel(position, (WriteOp.Cancel) op, placement));
            }
        }
        List<PreparedWrite> calls = new ArrayList<>(order.size());
        for (Object call : order) {
            calls.add(call instanceof ScheduleCall s ? s.prepare() : (PreparedWrite) call);
        }
        return calls;
    }

    private PreparedWrite prepareCancel(int position, WriteOp.Cancel cancel, ShardRouter.Placement placement) {
        return new PreparedWrite(List.of(cancel), new int[] {position}, placement.shard(), Script.CANCEL,
                shardWriteKeys(placement.shard()),
                new byte[][] {placement.member(), incarnationBytes, timestampArg(cancel.timestamp()),
                    timestampArg(cancel.forgetBefore())});
    }

    private byte[][] shardWriteKeys(int shard) {
        ShardKeys k = keys.shard(shard);
        return new byte[][] {k.due(), k.msg(), k.inflight(), k.attempts(), k.incarnation(), k.cancelled()};
    }

    /** Bounds one {@code schedule.lua} call: Redis runs a script alone, so a long one delays every other client. */
    static final int MAX_SCHEDULES_PER_CALL = 256;
    static final int MAX_BYTES_PER_CALL = 1 << 20;

    /** The schedules of one shard that go into one {@code schedule.lua} call. */
    private final class ScheduleCall {
        private final int shard;
        private final List<WriteOp> ops = new ArrayList<>();
        private final List<Integer> positions = new ArrayList<>();
        private final List<byte[]> args = new ArrayList<>(3 + 5 * 64);
        private int bytes;

        ScheduleCall(int shard) {
            this.shard = shard;
            args.add(bytes(keys.shard(shard).wakeChannel()));
            args.add(incarnationBytes);
            // the origin of a default id's own record, without its offset: schedule.lua orders versions by it
            args.add(bytes(router.intakeTopic() + "/" + shard));
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

        PreparedWrite prepare() {
            return new PreparedWrite(List.copyOf(ops), positions.stream().mapToInt(Integer::intValue).toArray(),
                    shard, Script.SCHEDULE, shardWriteKeys(shard), args.toArray(byte[][]::new));
        }
    }

    /** An unknown timestamp travels as an empty argument: the scripts then neither remember nor suppress. */
    private static byte[] timestampArg(long timestamp) {
        return timestamp == WriteOp.NO_TIMESTAMP ? new byte[0] : Decimal.ascii(timestamp);
    }

    /**
     * Queues {@code prepared[from..]} (and a WAIT) on the pipeline connection, flushes once, and completes
     * {@code result} when every reply is in. If Redis forgot the scripts (NOSCRIPT after a restart), loads them and runs
     * the batch again from the first operation that failed so: operations are idempotent, and running the rest again in
     * order keeps their order. That re-run happens only if no other batch was dispatched since this one ({@code
     * rerunOf} is this batch's dispatch number; -1 on the first run): a later batch may have run after the scripts
     * were back, and this batch's rest must not overtake it. Then the write fails as unavailable, and the caller writes
     * this batch and those after it again, in order.
     */
    private void runBatch(
            List<PreparedWrite> prepared, int from, WriteResult[] results, long rerunOf,
            CompletableFuture<List<WriteResult>> result) {
        List<CompletableFuture<Object>> replies = new ArrayList<>(prepared.size() - from);
        CompletableFuture<Long> wait = null;
        long number;
        synchronized (pipelineLock) {
            if (rerunOf >= 0 && dispatched != rerunOf) {
                result.completeExceptionally(new StoreUnavailableException("write of " + results.length
                        + " operations: Redis forgot the store's Lua scripts (restart or SCRIPT FLUSH) while later"
                        + " writes were on their way; write this batch and those after it again, in order.", null));
                return;
            }
            for (int i = from; i < prepared.size(); i++) {
                PreparedWrite p = prepared.get(i);
                RedisFuture<Object> reply = scripts.dispatch(pipeline, p.script, p.keys, p.args);
                replies.add(reply.toCompletableFuture());
            }
            if (options.waitReplicas() > 0) {
                wait = pipeline.waitForReplication(options.waitReplicas(), options.waitTimeout().toMillis())
                        .toCompletableFuture();
            }
            pipelineConnection.flushCommands();
            number = ++dispatched;
        }
        List<CompletableFuture<?>> all = new ArrayList<>(replies);
        if (wait != null) {
            all.add(wait);
        }
        CompletableFuture<Long> waitReply = wait;
        CompletableFuture.allOf(all.stream().map(f -> f.handle((v, e) -> null)).toArray(CompletableFuture[]::new))
                .whenComplete((ignored, never) -> {
                    try {
                        completeBatch(prepared, from, results, number, rerunOf < 0, result, replies, waitReply);
                    } catch (RuntimeException e) {
                        result.completeExceptionally(e);
                    }
                });
    }

    private void completeBatch(
            List<PreparedWrite> prepared, int from, WriteResult[] results, long number, boolean mayReload,
            CompletableFuture<List<WriteResult>> result, List<CompletableFuture<Object>> replies,
            CompletableFuture<Long> waitReply) {
        int firstNoScript = -1;
        for (int i = 0; i < replies.size(); i++) {
            PreparedWrite p = prepared.get(from + i);
            CompletableFuture<Object> reply = replies.get(i);
            Throwable error = failureOf(reply);
            if (error != null) {
                if (ScriptRunner.isNoScript(error)) {
                    if (firstNoScript < 0) {
                        firstNoScript = from + i;
                    }
                    continue;
                }
                result.completeExceptionally(RedisErrors.translate(error, p.describe()));
                return;
            }
            // an operation that ran after one that hit NOSCRIPT runs again below, in order: its first answer stays
            if (results[p.positions[0]] == null) {
                try {
                    fillResults(p, reply.join(), results);
                } catch (StoreException e) {
                    result.completeExceptionally(e);
                    return;
                }
            }
        }
        if (firstNoScript >= 0) {
            if (!mayReload) {
                result.completeExceptionally(new StoreUnavailableException("write of " + results.length
                        + " operations: Redis forgot the store's Lua scripts again right after they were loaded"
                        + " (SCRIPT FLUSH or restarts in a loop?). Retry with backoff.", null));
                return;
            }
            int restart = firstNoScript;
            LOG.info("Redis forgot the store's scripts (restarted or SCRIPT FLUSH): loading them again");
            scripts.loadAll(commands).whenComplete((v, e) -> {
                if (e != null) {
                    result.completeExceptionally(RedisErrors.translate(e, "SCRIPT LOAD after NOSCRIPT"));
                } else {
                    try {
                        runBatch(prepared, restart, results, number, result);
                    } catch (RuntimeException ex) {
                        result.completeExceptionally(RedisErrors.translate(ex, "write after SCRIPT LOAD"));
                    }
                }
            });
            return;
        }
        if (waitReply != null) {
            Throwable error = failureOf(waitReply);
            if (error != null) {
                result.completeExceptionally(RedisErrors.translate(error, "WAIT " + options.waitReplicas()));
                return;
            }
            long acked = waitReply.join();
            if (acked < options.waitReplicas()) {
                result.completeExceptionally(new StoreUnavailableException("write of " + results.length
                        + " operations: only " + acked + " of " + options.waitReplicas() + " replicas (waitReplicas)"
                        + " acknowledged within " + options.waitTimeout().toMillis() + " ms (waitTimeout). The"
                        + " writes are on the primary but not yet durable on replicas; retry (writes are idempotent)"
                        + " or lower waitReplicas.", null));
                return;
            }
        }
        for (int i = 0; i < results.length; i++) {
            if (results[i] == null) {
                result.completeExceptionally(new IllegalStateException("no result for operation " + i + " of "
                        + results.length + " in a write batch"));
                return;
            }
        }
        result.complete(List.of(results));
    }

    /** Files a call's reply under its operations' positions; a failure code throws. */
    private static void fillResults(PreparedWrite p, Object reply, WriteResult[] results) {
        if (p.script == Script.CANCEL) {
            results[p.positions[0]] = ScriptCodes.writeResult((Long) reply, "cancel", p.shard, p.ops.get(0).id());
            return;
        }
        List<?> codes = (List<?>) reply;
        if (codes.size() != p.ops.size() + 1) {
            long code = (Long) codes.get(0);
            throw ScriptCodes.failure(code < 0 ? code : ScriptCodes.INVALID_ARGUMENT, "schedule", p.shard, -1,
                    p.ops.get(0).id());
        }
        for (int i = 0; i < p.ops.size(); i++) {
            results[p.positions[i]] = ScriptCodes.writeResult((Long) codes.get(i), "schedule", p.shard,
                    p.ops.get(i).id());
        }
    }

    private static Throwable failureOf(CompletableFuture<?> future) {
        if (!future.isCompletedExceptionally()) {
            return null;
        }
        try {
            future.join();
            return null;
        } catch (RuntimeException e) {
            return e.getCause() != null ? e.getCause() : e;
        }
    }

    // ----------------------------------------------------------------------------------------------- pump calls

    @Override
    public long acquire(int shard) {
        ShardKeys k = keys.shard(shard);
        List<Object> reply = await(scripts.<List<Object>>run(commands, Script.ACQUIRE,
                new byte[][] {k.epoch(), k.due(), k.inflight(), k.attempts()},
                bytes(Integer.toString(HANDOVER_LIMIT)), bytes(k.wakeChannel())), "acquire of shard " + shard);
        long epoch = ScriptCodes.check((Long) reply.get(0), "acquire", shard, -1);
        long handedOver = (Long) reply.get(1);
        if (handedOver > 0) {
            LOG.info("Shard {} taken with epoch {}: {} messages that earlier owners left in flight are due again now"
                    + "{}", shard, epoch, handedOver, (Long) reply.get(2) > 0
                    ? " (" + reply.get(2) + " more return when their leases end)" : "");
        }
        return epoch;
    }

    @Override
    public ClaimBatch claim(int shard, long epoch, int max, long leaseMillis) {
        return await(claimAsync(shard, epoch, max, leaseMillis, 0), "claim on shard " + shard);
    }

    @Override
    public CompletableFuture<ClaimBatch> claimAsync(
            int shard, long epoch, int max, long leaseMillis, long lookAheadMillis) {
        if (max < 1) {
            throw new IllegalArgumentException("claim of shard " + shard + ": max is " + max + ", must be >= 1");
        }
        if (leaseMillis < 1) {
            throw new IllegalArgumentException("claim of shard " + shard + ": leaseMillis is " + leaseMillis
                    + ", must be >= 1");
        }
        if (lookAheadMillis < 0) {
            throw new IllegalArgumentException("claim of shard " + shard + ": lookAheadMillis is " + lookAheadMillis
                    + ", must be >= 0");
        }
        ShardKeys k = keys.shard(shard);
        String operation = "claim on shard " + shard;
        return translated(scripts.<List<Object>>run(commands, Script.CLAIM,
                new byte[][] {k.due(), k.msg(), k.inflight(), k.attempts(), k.epoch()},
                bytes(Long.toString(epoch)), bytes(Integer.toString(max)), bytes(Long.toString(leaseMillis)),
                bytes(Long.toString(lookAheadMillis))),
                operation).thenApply(reply -> claimBatch(shard, epoch, reply));
    }

    private ClaimBatch claimBatch(int shard, long epoch, List<Object> reply) {
        long head = (Long) reply.get(0);
        if (reply.size() == 1) {
            ScriptCodes.check(head, "claim", shard, epoch);
        }
        long nextDue = (Long) reply.get(1);
        long dropped = (Long) reply.get(2);
        if (dropped > 0) {
            LOG.warn("claim on shard {} dropped {} due members without payload (the store was changed outside the"
                    + " bridge's scripts?)", shard, dropped);
        }
        List<ClaimedMessage> messages = new ArrayList<>((reply.size() - 3) / 4);
        for (int i = 3; i + 3 < reply.size(); i += 4) {
            byte[] member = (byte[]) reply.get(i);
            long dueAt = (Long) reply.get(i + 1);
            long earlierAttempts = (Long) reply.get(i + 2);
            byte[] value = (byte[]) reply.get(i + 3);
            messages.add(new ClaimedMessage(new MessageRef(router.idOf(shard, member), member), dueAt,
                    (int) earlierAttempts + 1, StoredValue.envelope(value, () -> router.naturalOrigin(shard, member))));
        }
        return new ClaimBatch(List.copyOf(messages), nextDue, head);
    }

    @Override
    public int ack(int shard, long epoch, List<MessageRef> delivered) {
        return await(ackAsync(shard, epoch, delivered), "ack on shard " + shard);
    }

    @Override
    public CompletableFuture<Integer> ackAsync(int shard, long epoch, List<MessageRef> delivered) {
        ShardKeys k = keys.shard(shard);
        byte[][] args = new byte[delivered.size() + 1][];
        args[0] = bytes(Long.toString(epoch));
        for (int i = 0; i < delivered.size(); i++) {
            args[i + 1] = delivered.get(i).member();
        }
        return translated(scripts.<Long>run(commands, Script.ACK,
                new byte[][] {k.inflight(), k.msg(), k.attempts(), k.epoch(), k.due()}, args), "ack on shard " + shard)
                .thenApply(deleted -> (int) ScriptCodes.check(deleted, "ack", shard, epoch));
    }

    /** The future with Lettuce's failures turned into the store's exceptions. */
    private static <T> CompletableFuture<T> translated(CompletableFuture<T> future, String operation) {
        return future.handle((value, error) -> {
            if (error != null) {
                throw RedisErrors.translate(error, operation);
            }
            return value;
        });
    }

    @Override
    public boolean retry(int shard, long epoch, MessageRef message, long retryAtMillis) {
        ShardKeys k = keys.shard(shard);
        Long moved = await(scripts.run(commands, Script.RETRY,
                new byte[][] {k.due(), k.inflight(), k.attempts(), k.epoch()},
                bytes(Long.toString(epoch)), message.member(), bytes(Long.toString(retryAtMillis)),
                bytes(k.wakeChannel())), "retry of message '" + message.id() + "' on shard " + shard);
        return ScriptCodes.check(moved, "retry", shard, epoch) == 1;
    }

    @Override
    public int reclaim(int shard, long epoch, int max) {
        if (max < 1) {
            throw new IllegalArgumentException("reclaim of shard " + shard + ": max is " + max + ", must be >= 1");
        }
        ShardKeys k = keys.shard(shard);
        Long moved = await(scripts.run(commands, Script.RECLAIM,
                new byte[][] {k.due(), k.inflight(), k.attempts(), k.epoch()},
                bytes(Long.toString(epoch)), bytes(Integer.toString(max)), bytes(k.wakeChannel())),
                "reclaim on shard " + shard);
        return (int) ScriptCodes.check(moved, "reclaim", shard, epoch);
    }

    // ----------------------------------------------------------------------------------------------- inspection

    @Override
    public OptionalLong nextDueAt(int shard) {
        List<ScoredValue<byte[]>> first =
                await(commands.zrangeWithScores(keys.shard(shard).due(), 0, 0), "nextDueAt of shard " + shard);
        return first.isEmpty() ? OptionalLong.empty() : OptionalLong.of((long) first.get(0).getScore());
    }

    @Override
    public ShardStats stats(int shard) {
        ShardKeys k = keys.shard(shard);
        String operation = "stats of shard " + shard;
        RedisFuture<Long> pending = commands.zcard(k.due());
        RedisFuture<Long> inFlight = commands.zcard(k.inflight());
        RedisFuture<List<ScoredValue<byte[]>>> first = commands.zrangeWithScores(k.due(), 0, 0);
        List<ScoredValue<byte[]>> head = await(first, operation);
        return new ShardStats(shard, await(pending, operation), await(inFlight, operation),
                head.isEmpty() ? -1 : (long) head.get(0).getScore());
    }

    @Override
    public long now() {
        List<byte[]> time = await(commands.time(), "TIME");
        return Long.parseLong(string(time.get(0))) * 1000 + Long.parseLong(string(time.get(1))) / 1000;
    }

    // ----------------------------------------------------------------------------------------------- wake-ups

    @Override
    public void onWake(WakeListener listener) {
        wakeListeners.add(listener);
    }

    private void subscribeWakeChannels() {
        pubSub.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String channel, String message) {
                int shard = keys.shardOfWakeChannel(channel);
                if (shard < 0) {
                    return;
                }
                long dueAt;
                try {
                    dueAt = parseMillis(message);
                } catch (NumberFormatException e) {
                    LOG.warn("Ignoring wake-up '{}' on {}: not a time", message, channel);
                    return;
                }
                for (WakeListener listener : wakeListeners) {
                    try {
                        listener.wake(shard, dueAt);
                    } catch (RuntimeException e) {
                        LOG.warn("Wake listener failed for shard {}", shard, e);
                    }
                }
            }
        });
        String[] channels = new String[keys.shardCount()];
        for (int shard = 0; shard < channels.length; shard++) {
            channels[shard] = keys.shard(shard).wakeChannel();
        }
        await(pubSub.async().subscribe(channels), "SUBSCRIBE to " + channels.length + " wake channels");
    }

    private static long parseMillis(String s) {
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            return (long) Double.parseDouble(s); // Lua may format large numbers as 1.7e+12
        }
    }

    // ----------------------------------------------------------------------------------------------- lifecycle

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            new Connected(options, resources, client, commandConnection, pipelineConnection, pubSub, scripts).close();
        }
    }

    // ----------------------------------------------------------------------------------------------- start-up

    /** The open client and connections, before the store exists; closes them all if start-up fails. */
    private record Connected(
            RedisStoreOptions options,
            ClientResources resources,
            RedisClient client,
            StatefulRedisConnection<byte[], byte[]> commandConnection,
            StatefulRedisConnection<byte[], byte[]> pipelineConnection,
            StatefulRedisPubSubConnection<String, String> pubSub,
            ScriptRunner scripts) {

        static Connected open(RedisStoreOptions options) {
            RedisURI uri;
            try {
                uri = RedisURI.create(options.redisUri());
            } catch (RuntimeException e) {
                throw new StoreConfigurationException("redisUri '" + options.redactedUri() + "' is not a Redis URI ("
                        + e.getMessage() + "). Use e.g. redis://host:6379, rediss://host:6380 or"
                        + " redis-sentinel://host:26379#mymaster.", e);
            }
            uri.setTimeout(options.commandTimeout());
            // reconnect quickly: the intake and the pump wait for Redis, so back off to 1 s at most (default: 30 s)
            ClientResources resources = DefaultClientResources.builder()
                    .reconnectDelay(Delay.exponential(Duration.ofMillis(10), Duration.ofSeconds(1), 2,
                            TimeUnit.MILLISECONDS))
                    .build();
            RedisClient client = null;
            StatefulRedisConnection<byte[], byte[]> commandConnection = null;
            StatefulRedisConnection<byte[], byte[]> pipelineConnection = null;
            try {
                client = RedisClient.create(resources, uri);
                client.setOptions(clientOptions(options));
                commandConnection = client.connect(ByteArrayCodec.INSTANCE);
                pipelineConnection = client.connect(ByteArrayCodec.INSTANCE);
                pipelineConnection.setAutoFlushCommands(false);
                StatefulRedisPubSubConnection<String, String> pubSub = client.connectPubSub(StringCodec.UTF8);
                return new Connected(options, resources, client, commandConnection, pipelineConnection, pubSub,
                        new ScriptRunner());
            } catch (RuntimeException e) {
                new Connected(options, resources, client, commandConnection, pipelineConnection, null, null).close();
                StoreException translated = RedisErrors.translate(e, "connect to Redis at " + options.redactedUri());
                if (translated instanceof StoreUnavailableException) {
                    throw new StoreUnavailableException("Cannot connect to Redis at " + options.redactedUri() + ": "
                            + rootMessage(e) + ". Check that Redis runs there and that redisUri is right.", e);
                }
                throw translated;
            }
        }

        long awaitMillis() {
            return options.commandTimeout().toMillis() * 2 + 1_000;
        }

        void close() {
            closeQuietly(pubSub);
            closeQuietly(pipelineConnection);
            closeQuietly(commandConnection);
            if (client != null) {
                try {
                    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
                } catch (RuntimeException e) {
                    LOG.debug("Redis client shutdown failed", e);
                }
            }
            if (resources != null) {
                resources.shutdown(0, 2, TimeUnit.SECONDS);
            }
        }

        private static void closeQuietly(AutoCloseable closeable) {
            if (closeable == null) {
                return;
            }
            try {
                closeable.close();
            } catch (Exception e) {
                LOG.debug("Closing a Redis connection failed", e);
            }
        }
    }

    private static ClientOptions clientOptions(RedisStoreOptions options) {
        long commandTimeout = options.commandTimeout().toMillis();
        long waitTimeout = options.waitTimeout().toMillis() + commandTimeout;
        TimeoutOptions.TimeoutSource timeouts = new TimeoutOptions.TimeoutSource() {
            @Override
            public long getTimeout(RedisCommand<?, ?, ?> command) {
                return CommandType.WAIT.equals(command.getType()) ? waitTimeout : commandTimeout;
            }

            @Override
            public TimeUnit getTimeUnit() {
                return TimeUnit.MILLISECONDS;
            }
        };
        return ClientOptions.builder()
                // RESP2: a wrong password then fails as WRONGPASS on every Redis version; Redis 6.2 closes the
                // connection on a failed RESP3 HELLO, which would read as "unreachable"
                .protocolVersion(ProtocolVersion.RESP2)
                .autoReconnect(true)
                // fail fast while disconnected instead of buffering: the intake and the pump retry with backoff
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .timeoutOptions(TimeoutOptions.builder().timeoutCommands(true).timeoutSource(timeouts).build())
                .socketOptions(SocketOptions.builder().connectTimeout(options.commandTimeout()).keepAlive(true).build())
                .build();
    }

    private static void checkServer(Connected c) {
        RedisStoreOptions options = c.options;
        RedisAsyncCommands<byte[], byte[]> commands = c.commandConnection.async();
        String where = "Redis at " + options.redactedUri();
        Map<String, String> server = parseInfo(await(commands.info("server"), "INFO server", c.awaitMillis()));
        String version = server.getOrDefault("redis_version", "");
        int major = majorVersion(version);
        if (major >= 0 && major < MIN_REDIS_MAJOR) {
            throw new StoreConfigurationException(where + " is version " + version + ": the store needs Redis "
                    + MIN_REDIS_MAJOR + ".0 or later (its scripts read TIME before writing). Upgrade Redis.");
        }

        Map<String, String> memory = parseInfo(await(commands.info("memory"), "INFO memory", c.awaitMillis()));
        String policy = memory.get("maxmemory_policy");
        if (policy == null) {
            policy = configGet(c, "maxmemory-policy");
        }
        if (policy == null) {
            LOG.warn("{}: could not read maxmemory-policy (neither INFO memory nor CONFIG GET tell it). It must be"
                    + " noeviction, or Redis may evict pending messages when memory runs short.", where);
        } else if (!policy.equals("noeviction")) {
            throw new StoreConfigurationException(where + " has maxmemory-policy " + policy + ": when memory runs"
                    + " short it would evict keys, silently losing pending messages. Set maxmemory-policy noeviction"
                    + " (in redis.conf, or CONFIG SET maxmemory-policy noeviction); a full Redis then refuses new"
                    + " messages, which the bridge reports and retries, instead of dropping stored ones.");
        }

        Map<String, String> persistence =
                parseInfo(await(commands.info("persistence"), "INFO persistence", c.awaitMillis()));
        String aof = persistence.get("aof_enabled");
        String fsync = configGet(c, "appendfsync");
        String replicas = options.waitReplicas() > 0
                ? " (each write batch also waits for " + options.waitReplicas() + " replicas, which narrows this)"
                : "";
        if ("0".equals(aof)) {
            LOG.warn("{} has appendonly no: if Redis stops or crashes, every write since its last RDB snapshot is"
                    + " lost, though the intake already committed those records{}. Set appendonly yes and"
                    + " appendfsync always for no loss.", where, replicas);
        } else if (fsync == null) {
            LOG.warn("{}: could not read appendfsync (CONFIG GET is not allowed). Make sure it is always:"
                    + " everysec can lose about a second of acknowledged writes if the Redis host crashes.", where);
        } else if (fsync.equals("everysec")) {
            LOG.warn("{} has appendfsync everysec: if the Redis host crashes (power loss, kernel panic), about the"
                    + " last second (up to two) of acknowledged writes is lost, though the intake already committed"
                    + " those records{}. A crash of the Redis process alone loses nothing. Set appendfsync always"
                    + " for no loss.", where, replicas);
        } else if (fsync.equals("no")) {
            LOG.warn("{} has appendfsync no: if the Redis host crashes, the writes the operating system had not yet"
                    + " flushed (often 30 s) are lost, though the intake already committed those records{}. Set"
                    + " appendfsync always for no loss.", where, replicas);
        }
    }

    private static String configGet(Connected c, String parameter) {
        try {
            Map<String, String> values = c.commandConnection.async().configGet(parameter)
                    .get(c.awaitMillis(), TimeUnit.MILLISECONDS);
            return values.get(parameter);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            LOG.debug("CONFIG GET {} failed", parameter, e);
            return null;
        }
    }

    private record Meta(int shards, String incarnation, boolean initialised) {}

    private static Meta initialise(Connected c, Clock clock) {
        RedisStoreOptions options = c.options;
        RedisAsyncCommands<byte[], byte[]> commands = c.commandConnection.async();
        byte[] metaKey = RedisKeys.metaKey(options.keyPrefix(), options.intakeTopic());
        List<Object> reply = await(c.scripts.run(commands, Script.INIT, new byte[][] {metaKey},
                bytes(Integer.toString(options.shardCount())), bytes(UUID.randomUUID().toString()),
                bytes(Long.toString(clock.millis()))), "initialise store meta " + string(metaKey), c.awaitMillis());
        int shards;
        try {
            shards = Integer.parseInt(string((byte[]) reply.get(0)));
        } catch (RuntimeException e) {
            throw new StoreConfigurationException("The meta hash " + string(metaKey) + " holds shards '"
                    + (reply.get(0) instanceof byte[] b ? string(b) : reply.get(0)) + "', not a number: another"
                    + " application uses this key prefix? Choose another keyPrefix.", e);
        }
        String incarnation = string((byte[]) reply.get(1));
        boolean initialised = reply.size() > 2 && reply.get(2) != null;
        if (shards != options.shardCount()) {
            LOG.warn("The store {} was created with {} shards; the configured shard count (intake partitions) is {}."
                    + " Keeping {}: default ids of intake partitions >= {} are hashed over the shards, and every"
                    + " shard must be pumped by some instance. To change the count, drain the store and delete {}.",
                    string(metaKey), shards, options.shardCount(), shards, shards, string(metaKey));
        }
        return new Meta(shards, incarnation, initialised);
    }

    /**
     * On first start, copies the incarnation into every shard, then marks the store initialised. On every start, checks
     * that every shard holds it: a shard without it lost its data.
     */
    private static void prepareShards(Connected c, RedisKeys keys, Meta meta) {
        RedisAsyncCommands<byte[], byte[]> commands = c.commandConnection.async();
        byte[] incarnation = bytes(meta.incarnation);
        if (!meta.initialised) {
            List<RedisFuture<String>> sets = new ArrayList<>();
            for (int shard = 0; shard < keys.shardCount(); shard++) {
                sets.add(commands.set(keys.shard(shard).incarnation(), incarnation, SetArgs.Builder.nx()));
            }
            for (RedisFuture<String> set : sets) {
                await(set, "initialise shard incarnation", c.awaitMillis());
            }
            await(commands.hset(keys.meta(), bytes("initialised"), bytes("1")), "mark store initialised",
                    c.awaitMillis());
        }
        List<RedisFuture<byte[]>> gets = new ArrayList<>();
        for (int shard = 0; shard < keys.shardCount(); shard++) {
            gets.add(commands.get(keys.shard(shard).incarnation()));
        }
        for (int shard = 0; shard < keys.shardCount(); shard++) {
            byte[] found = await(gets.get(shard), "read shard incarnation", c.awaitMillis());
            if (!Arrays.equals(found, incarnation)) {
                throw new StoreDataLostException("Shard " + shard + " of the store at " + c.options.redactedUri()
                        + " holds incarnation " + (found == null ? "(none)" : "'" + string(found) + "'")
                        + " but the store's meta hash says '" + meta.incarnation + "': that shard (its Redis node)"
                        + " lost its data, so its pending messages may be gone. Decide whether to re-read the intake"
                        + " topic from an earlier offset; to accept the loss, delete " + string(keys.meta())
                        + " and restart.");
            }
        }
    }

    // ----------------------------------------------------------------------------------------------- admin access

    /** The shared command connection, for {@link RedisMessageAdmin}'s reads and scripts. */
    RedisAsyncCommands<byte[], byte[]> adminCommands() {
        return commands;
    }

    /** The script runner, for {@link RedisMessageAdmin}. */
    ScriptRunner adminScripts() {
        return scripts;
    }

    /** Waits for a command of {@link RedisMessageAdmin} as the store's own calls wait. */
    <T> T adminAwait(CompletionStage<T> future, String operation) {
        return await(future, operation);
    }

    // ----------------------------------------------------------------------------------------------- helpers

    private <T> T await(CompletionStage<T> future, String operation) {
        return await(future, operation, awaitMillis);
    }

    private static <T> T await(CompletionStage<T> future, String operation, long awaitMillis) {
        try {
            return future.toCompletableFuture().get(awaitMillis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreUnavailableException(operation + " interrupted", e);
        } catch (ExecutionException e) {
            throw RedisErrors.translate(e.getCause(), operation);
        } catch (TimeoutException e) {
            throw new StoreUnavailableException(operation + ": no answer from Redis within " + awaitMillis + " ms", e);
        }
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return String.valueOf(t.getMessage());
    }

    static Map<String, String> parseInfo(String info) {
        Map<String, String> fields = new HashMap<>();
        for (String line : info.split("\r?\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && !line.startsWith("#")) {
                fields.put(line.substring(0, colon), line.substring(colon + 1).trim());
            }
        }
        return fields;
    }

    static int majorVersion(String version) {
        int dot = version.indexOf('.');
        try {
            return Integer.parseInt(dot < 0 ? version : version.substring(0, dot));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String string(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }
}

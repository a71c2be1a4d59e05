package io.delaybridge.bridge.store.redis;

import static io.delaybridge.bridge.store.redis.RedisCalls.bytes;
import static io.delaybridge.bridge.store.redis.RedisCalls.string;

import io.delaybridge.bridge.store.ClaimBatch;
import io.delaybridge.bridge.store.ClaimedMessage;
import io.delaybridge.bridge.store.DelayStore;
import io.delaybridge.bridge.store.ExpressCheck;
import io.delaybridge.bridge.store.FarStore;
import io.delaybridge.bridge.store.MessageRef;
import io.delaybridge.bridge.store.PositionMark;
import io.delaybridge.bridge.store.SeriesStep;
import io.delaybridge.bridge.store.ShardRouter;
import io.delaybridge.bridge.store.ShardStats;
import io.delaybridge.bridge.store.StoreConfigurationException;
import io.delaybridge.bridge.store.StoreDataLostException;
import io.delaybridge.bridge.store.StoreUnavailableException;
import io.delaybridge.bridge.store.WakeListener;
import io.delaybridge.bridge.store.WriteOp;
import io.delaybridge.bridge.store.WriteResult;
import io.delaybridge.bridge.store.WrittenBatch;
import io.delaybridge.bridge.store.redis.RedisKeys.ShardKeys;
import io.delaybridge.bridge.time.Time;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntSupplier;
import java.util.function.IntToLongFunction;
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
 * <h2>Topologies</h2>
 *
 * One server, a master behind Sentinel, or a Redis Cluster ({@link RedisConnections}, {@link RedisMode}): every shard's
 * keys share one hash tag, so each script runs on the one node that owns the shard. The parts: {@link
 * RedisConnections} (client, connections, topology), {@link ServerChecks} (start-up checks of every master), {@link
 * StoreMeta} (incarnation markers), {@link WritePlan} and {@link WritePipeline} (the intake's writes), {@link
 * ShardCalls} (the pump's shard operations), {@link WakeSubscription} (wake-ups); this class ties the parts together.
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
 *       batch becomes one {@code schedule.lua} call per shard (up to {@value WritePlan#MAX_SCHEDULES_PER_CALL} messages) and
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
 * {@code waitReplicas > 0} the batch also waits for that many replicas (on a cluster: of each master it wrote to). Start-up refuses a {@code maxmemory-policy}
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

    private final RedisConnections connections;
    private final ScriptRunner scripts;
    private final RedisKeys keys;
    private final ShardRouter router;
    private final String incarnation;
    private final byte[] publish;
    private final WritePlan plan;
    private final WritePipeline writes;
    private final ShardCalls shardCalls;
    private final List<WakeListener> wakeListeners = new CopyOnWriteArrayList<>();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final long awaitMillis;
    private volatile WakeSubscription wakeSubscription;
    private final FarIndex far;

    private RedisDelayStore(
            RedisConnections connections,
            ScriptRunner scripts,
            RedisKeys keys,
            String incarnation,
            ServerChecks.Facts facts,
            Time time) {
        RedisStoreOptions options = connections.options();
        this.connections = connections;
        this.scripts = scripts;
        this.keys = keys;
        this.router = new ShardRouter(options.intakeTopic(), keys.shardCount());
        this.incarnation = incarnation;
        this.publish = bytes(facts.publishCommand());
        this.plan = new WritePlan(keys, router, incarnation, facts.publishCommand());
        this.writes = new WritePipeline(connections, scripts, plan, keys, time);
        this.awaitMillis = connections.awaitMillis();
        this.shardCalls = new ShardCalls(connections, scripts, keys, router, publish);
        this.far = new FarIndex(connections.commands(), scripts, keys, router, plan, writes, awaitMillis);
    }

    /**
     * Connects (finding out the topology), checks every master, loads the scripts on every node, initialises the
     * store on first use (shard count, incarnation) and subscribes to the wake channels.
     *
     * @throws StoreUnavailableException if Redis cannot be reached
     * @throws StoreConfigurationException if Redis is configured so that the store cannot keep its guarantees
     * @throws StoreDataLostException if a shard lost the data of this store
     */
    public static RedisDelayStore connect(RedisStoreOptions options) {
        return connect(options, Time.SYSTEM);
    }

    /** As {@link #connect(RedisStoreOptions)}, on {@code time}: its wall clock stamps the creation of a new store. */
    public static RedisDelayStore connect(RedisStoreOptions options, Time time) {
        return connect(options, time, options::shardCount);
    }

    /**
     * As {@link #connect(RedisStoreOptions, Time)}, with the shard count asked only once the connection, the server
     * checks and the scripts are done: the bridge connects while it still counts the intake's partitions. An
     * exception of {@code shardCount} closes the connection and is thrown as it is.
     */
    public static RedisDelayStore connect(RedisStoreOptions options, Time time, IntSupplier shardCount) {
        RedisConnections c = RedisConnections.open(options);
        try {
            ScriptRunner scripts = new ScriptRunner();
            // the scripts travel ahead of the checks' questions; a failed check is still what stops the start
            CompletableFuture<Void> loaded = scripts.loadAll(c.commands());
            ServerChecks.Facts facts = ServerChecks.check(c);
            RedisCalls.await(loaded, "SCRIPT LOAD at " + options.redactedUri(), c.awaitMillis());
            StoreMeta.Meta meta = StoreMeta.initialise(c, scripts, time.clock(), shardCount.getAsInt());
            RedisKeys keys = new RedisKeys(options.keyPrefix(), options.intakeTopic(), meta.shards());
            StoreMeta.prepareShards(c, keys, meta);
            RedisDelayStore store = new RedisDelayStore(c, scripts, keys, meta.incarnation(), facts, time);
            store.subscribeWakeChannels(facts.shardedPubSub());
            LOG.info(
                    "Redis store at {} ({}) ready: intake topic {}, {} shards, key prefix {}, incarnation {},"
                            + " wake-ups by {}",
                    options.redactedUri(),
                    c.mode().setting(),
                    options.intakeTopic(),
                    meta.shards(),
                    options.keyPrefix(),
                    meta.incarnation(),
                    facts.publishCommand());
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
     * The incarnation Redis holds now, read from the meta hash; empty if the meta hash is gone (Redis lost the data).
     * For health checks: compare with {@link #incarnation()}.
     */
    public Optional<String> currentIncarnation() {
        return StoreMeta.current(connections, keys);
    }

    /** The router of this store: which shard and member an id has. */
    public ShardRouter router() {
        return router;
    }

    /**
     * Fences this store's writes by the epochs its instance holds ({@code epochs}: shard -> epoch, negative for a shard
     * it does not hold): a write into a shard whose epoch moved on (another instance took it: this one was stopped past
     * its session, a zombie) fails with {@link io.delaybridge.bridge.store.StoreFencedException} and changes nothing,
     * instead of storing again what the new owner may have delivered already. Wired once, at start-up.
     */
    public void fenceWrites(IntToLongFunction epochs) {
        plan.fenceWrites(epochs);
    }

    /** The far tier of this store (docs/redis-store.md, "The far tier"). */
    public FarStore far() {
        return far;
    }

    /** The key names of this store. */
    public RedisKeys keys() {
        return keys;
    }

    /** The topology the store talks to: standalone, Sentinel or cluster. */
    public RedisMode mode() {
        return connections.mode();
    }

    /** The Redis node that holds {@code shard} now ({@code host:port} on a cluster), for health and admin messages. */
    public String nodeOf(int shard) {
        return connections.nodeOf(keys.shard(shard).due());
    }

    @Override
    public int shardCount() {
        return keys.shardCount();
    }

    @Override
    public CompletableFuture<List<WriteResult>> write(List<WriteOp> ops) {
        return writes.write(ops);
    }

    @Override
    public CompletableFuture<List<WriteResult>> write(List<WriteOp> ops, List<PositionMark> marks) {
        return writes.write(ops, marks);
    }

    @Override
    public Map<Integer, Long> positions(Collection<Integer> partitions) {
        // on a cluster the marks go into every shard (WritePlan.marks): the lowest one tells
        List<int[]> asked = new ArrayList<>();
        List<RedisFuture<byte[]>> reads = new ArrayList<>();
        for (int partition : partitions) {
            int from = connections.isCluster() ? 0 : keys.homeShard(partition);
            int to = connections.isCluster() ? keys.shardCount() : from + 1;
            for (int shard = from; shard < to; shard++) {
                asked.add(new int[] {partition, shard});
                reads.add(commands().hget(keys.shard(shard).positions(), Decimal.ascii(partition)));
            }
        }
        Map<Integer, Long> positions = new TreeMap<>();
        for (int i = 0; i < reads.size(); i++) {
            int partition = asked.get(i)[0];
            byte[] key = keys.shard(asked.get(i)[1]).positions();
            byte[] value =
                    await(reads.get(i), "read the position of intake partition " + partition + " in " + string(key));
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

    @Override
    public CompletableFuture<WrittenBatch> write(
            List<WriteOp> ops, List<PositionMark> marks, List<ExpressCheck> checks) {
        return writes.write(ops, marks, checks);
    }

    private RedisClusterAsyncCommands<byte[], byte[]> commands() {
        return connections.commands();
    }

    // ----------------------------------------------------------------------------------------------- pump calls

    @Override
    public long acquire(int shard) {
        return shardCalls.acquire(shard);
    }

    @Override
    public ClaimBatch claim(int shard, long epoch, int max, long leaseMillis) {
        return shardCalls.claim(shard, epoch, max, leaseMillis);
    }

    @Override
    public CompletableFuture<ClaimBatch> claimAsync(
            int shard, long epoch, int max, long leaseMillis, long lookAheadMillis) {
        return shardCalls.claimAsync(shard, epoch, max, leaseMillis, lookAheadMillis);
    }

    @Override
    public int ack(int shard, long epoch, List<MessageRef> delivered) {
        return shardCalls.ack(shard, epoch, delivered);
    }

    @Override
    public CompletableFuture<Integer> ackAsync(int shard, long epoch, List<MessageRef> delivered) {
        return shardCalls.ackAsync(shard, epoch, delivered);
    }

    @Override
    public CompletableFuture<Integer> settleSeriesAsync(int shard, long epoch, List<SeriesStep> steps) {
        return shardCalls.settleSeriesAsync(shard, epoch, steps);
    }

    @Override
    public boolean retry(int shard, long epoch, MessageRef message, long retryAtMillis) {
        return shardCalls.retry(shard, epoch, message, retryAtMillis);
    }

    @Override
    public CompletableFuture<Integer> handBackAsync(int shard, long epoch, List<ClaimedMessage> messages) {
        return shardCalls.handBackAsync(shard, epoch, messages);
    }

    @Override
    public int reclaim(int shard, long epoch, int max) {
        return shardCalls.reclaim(shard, epoch, max, false);
    }

    @Override
    public int reclaimAll(int shard, long epoch, int max) {
        return shardCalls.reclaim(shard, epoch, max, true);
    }

    // ----------------------------------------------------------------------------------------------- inspection

    @Override
    public OptionalLong nextDueAt(int shard) {
        List<ScoredValue<byte[]>> first =
                await(commands().zrangeWithScores(keys.shard(shard).due(), 0, 0), "nextDueAt of shard " + shard);
        return first.isEmpty()
                ? OptionalLong.empty()
                : OptionalLong.of((long) first.get(0).getScore());
    }

    @Override
    public ShardStats stats(int shard) {
        ShardKeys k = keys.shard(shard);
        String operation = "stats of shard " + shard;
        RedisFuture<Long> pending = commands().zcard(k.due());
        RedisFuture<Long> inFlight = commands().zcard(k.inflight());
        RedisFuture<List<ScoredValue<byte[]>>> first = commands().zrangeWithScores(k.due(), 0, 0);
        List<ScoredValue<byte[]>> head = await(first, operation);
        return new ShardStats(
                shard,
                await(pending, operation),
                await(inFlight, operation),
                head.isEmpty() ? -1 : (long) head.get(0).getScore());
    }

    @Override
    public long now() {
        List<byte[]> time = await(commands().time(), "TIME");
        return Long.parseLong(string(time.get(0))) * 1000 + Long.parseLong(string(time.get(1))) / 1000;
    }

    // ----------------------------------------------------------------------------------------------- wake-ups

    @Override
    public void onWake(WakeListener listener) {
        wakeListeners.add(listener);
    }

    private void subscribeWakeChannels(boolean sharded) {
        wakeSubscription = WakeSubscription.open(connections, keys, sharded, wakeListeners);
    }

    // ----------------------------------------------------------------------------------------------- lifecycle

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            WakeSubscription subscription = wakeSubscription;
            if (subscription != null) {
                subscription.close();
            }
            connections.close();
        }
    }

    // ----------------------------------------------------------------------------------------------- admin access

    /** The shared command connection, for {@link RedisMessageAdmin}'s reads and scripts. */
    RedisClusterAsyncCommands<byte[], byte[]> adminCommands() {
        return commands();
    }

    /** The script runner, for {@link RedisMessageAdmin}. */
    ScriptRunner adminScripts() {
        return scripts;
    }

    /** The command the scripts publish wake-ups with (PUBLISH or SPUBLISH), for {@link RedisMessageAdmin}. */
    byte[] publishCommand() {
        return publish;
    }

    /** The connections, for {@link RedisMessageAdmin}'s incarnation check. */
    RedisConnections connections() {
        return connections;
    }

    /** Waits for a command of {@link RedisMessageAdmin} as the store's own calls wait. */
    <T> T adminAwait(CompletionStage<T> future, String operation) {
        return await(future, operation);
    }

    private <T> T await(CompletionStage<T> future, String operation) {
        return RedisCalls.await(future, operation, awaitMillis);
    }

    /** Fields of an INFO reply. */
    static Map<String, String> parseInfo(String info) {
        return RedisCalls.parseInfo(info);
    }
}

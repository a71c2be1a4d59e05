package io.delaybridge.bridge.store.redis;

import io.delaybridge.bridge.store.ClaimBatch;
import io.delaybridge.bridge.store.ClaimedMessage;
import io.delaybridge.bridge.store.DelayStore;
import io.delaybridge.bridge.store.DelayStore.Parked;
import io.delaybridge.bridge.store.ExpressCheck;
import io.delaybridge.bridge.store.FarStore;
import io.delaybridge.bridge.store.MessageAdmin;
import io.delaybridge.bridge.store.MessageRef;
import io.delaybridge.bridge.store.PositionMark;
import io.delaybridge.bridge.store.SeriesStep;
import io.delaybridge.bridge.store.ShardRouter;
import io.delaybridge.bridge.store.ShardStats;
import io.delaybridge.bridge.store.SharedRates;
import io.delaybridge.bridge.store.StoreConfigurationException;
import io.delaybridge.bridge.store.StoreDataLostException;
import io.delaybridge.bridge.store.StoreUnavailableException;
import io.delaybridge.bridge.store.TransactionWriters;
import io.delaybridge.bridge.store.WakeListener;
import io.delaybridge.bridge.store.WriteOp;
import io.delaybridge.bridge.store.WriteResult;
import io.delaybridge.bridge.store.WrittenBatch;
import io.delaybridge.bridge.time.Time;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntSupplier;
import java.util.function.IntToLongFunction;

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
 * keys share one hash tag, so each script runs on the one node that owns the shard. The parts: {@link StoreOpening}
 * (connect, check, load, initialise), {@link RedisConnections} (client, connections, topology), {@link ServerChecks}
 * (start-up checks of every master), {@link StoreMeta} (incarnation markers), {@link WritePlan} and {@link
 * WritePipeline} (the intake's writes), {@link ShardCalls} (the pump's shard operations), {@link ShardReads}
 * (positions, stats, {@code TIME}), {@link WakeSubscription} (wake-ups), and over {@link StoreAccess} {@link
 * RedisMessageAdmin}, {@link RedisSharedRates} and {@link RedisTransactionWriters}; {@link StoreAssembly} builds and
 * wires them, this class ties them together.
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

    private final StoreAccess access;
    private final StoreAssembly parts;
    private final AtomicBoolean closed = new AtomicBoolean();

    /** Ties the parts together; {@link StoreOpening} prepared Redis and built the parts. */
    RedisDelayStore(StoreAccess access, StoreAssembly parts) {
        this.access = access;
        this.parts = parts;
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
        return StoreOpening.open(options, time, shardCount);
    }

    /** The store's incarnation: a random id created with the store. A different value means Redis lost the data. */
    @Override
    public String incarnation() {
        return access.incarnation();
    }

    /**
     * The incarnation Redis holds now, read from the meta hash; empty if the meta hash is gone (Redis lost the data).
     * For health checks: compare with {@link #incarnation()}.
     */
    public Optional<String> currentIncarnation() {
        return StoreMeta.current(access.connections(), access.keys());
    }

    /** The router of this store: which shard and member an id has. */
    public ShardRouter router() {
        return access.router();
    }

    /**
     * Fences this store's writes by the epochs its instance holds ({@code epochs}: shard -> epoch, negative for a shard
     * it does not hold): a write into a shard whose epoch moved on (another instance took it: this one was stopped past
     * its session, a zombie) fails with {@link io.delaybridge.bridge.store.StoreFencedException} and changes nothing,
     * instead of storing again what the new owner may have delivered already. Wired once, at start-up.
     */
    public void fenceWrites(IntToLongFunction epochs) {
        parts.plan().fenceWrites(epochs);
    }

    /** The far tier of this store (docs/redis-store.md, "The far tier"). */
    public FarStore far() {
        return parts.far();
    }

    /** The operator's reads and changes of single messages on this store ({@link RedisMessageAdmin}). */
    public MessageAdmin messageAdmin() {
        return new RedisMessageAdmin(access, parts.reads());
    }

    /** The service's delivery caps, kept in this store's Redis ({@link RedisSharedRates}). */
    public SharedRates sharedRates() {
        return new RedisSharedRates(access);
    }

    /**
     * Who may have written each shard's exactly-once transactions, kept in this store's Redis ({@link
     * RedisTransactionWriters}).
     */
    public TransactionWriters transactionWriters() {
        return new RedisTransactionWriters(access);
    }

    /** The key names of this store. */
    public RedisKeys keys() {
        return access.keys();
    }

    /** The topology the store talks to: standalone, Sentinel or cluster. */
    public RedisMode mode() {
        return access.connections().mode();
    }

    /** The Redis node that holds {@code shard} now ({@code host:port} on a cluster), for health and admin messages. */
    public String nodeOf(int shard) {
        return access.nodeOf(shard);
    }

    @Override
    public int shardCount() {
        return access.keys().shardCount();
    }

    @Override
    public CompletableFuture<List<WriteResult>> write(List<WriteOp> ops) {
        return parts.writes().write(ops);
    }

    @Override
    public long writeFence(int shard) {
        return parts.plan().fence(shard);
    }

    @Override
    public CompletableFuture<List<WriteResult>> write(List<WriteOp> ops, int shard, long epoch) {
        WritePlan plan = parts.plan();
        return parts.writes().write(ops, s -> s == shard && epoch >= 0 ? epoch : plan.fence(s));
    }

    @Override
    public CompletableFuture<List<WriteResult>> write(List<WriteOp> ops, List<PositionMark> marks) {
        return parts.writes().write(ops, marks);
    }

    @Override
    public Map<Integer, Long> positions(Collection<Integer> partitions) {
        return parts.reads().positions(partitions);
    }

    @Override
    public CompletableFuture<WrittenBatch> write(
            List<WriteOp> ops, List<PositionMark> marks, List<ExpressCheck> checks) {
        return parts.writes().write(ops, marks, checks);
    }

    // ----------------------------------------------------------------------------------------------- pump calls
    @Override
    public long acquire(int shard) {
        return parts.shardCalls().acquire(shard);
    }

    @Override
    public ClaimBatch claim(int shard, long epoch, int max, long leaseMillis) {
        return parts.shardCalls().claim(shard, epoch, max, leaseMillis);
    }

    @Override
    public CompletableFuture<ClaimBatch> claimAsync(
            int shard, long epoch, int max, long leaseMillis, long lookAheadMillis) {
        return parts.shardCalls().claimAsync(shard, epoch, max, leaseMillis, lookAheadMillis);
    }

    @Override
    public int ack(int shard, long epoch, List<MessageRef> delivered) {
        return parts.shardCalls().ack(shard, epoch, delivered);
    }

    @Override
    public CompletableFuture<Integer> ackAsync(int shard, long epoch, List<MessageRef> delivered) {
        return parts.shardCalls().ackAsync(shard, epoch, delivered);
    }

    @Override
    public CompletableFuture<Integer> settleSeriesAsync(int shard, long epoch, List<SeriesStep> steps) {
        return parts.shardCalls().settleSeriesAsync(shard, epoch, steps);
    }

    @Override
    public boolean retry(int shard, long epoch, MessageRef message, long retryAtMillis) {
        return parts.shardCalls().retry(shard, epoch, message, retryAtMillis);
    }

    @Override
    public CompletableFuture<Integer> parkAsync(int shard, long epoch, List<Parked> messages) {
        return parts.shardCalls().parkAsync(shard, epoch, messages);
    }

    @Override
    public int reclaim(int shard, long epoch, int max) {
        return parts.shardCalls().reclaim(shard, epoch, max, false);
    }

    @Override
    public int reclaimAll(int shard, long epoch, int max) {
        return parts.shardCalls().reclaim(shard, epoch, max, true);
    }

    // ----------------------------------------------------------------------------------------------- inspection

    @Override
    public OptionalLong nextDueAt(int shard) {
        return parts.reads().nextDueAt(shard);
    }

    @Override
    public CompletableFuture<List<ClaimedMessage>> peekAsync(int shard, List<String> ids) {
        return parts.reads().peekAsync(shard, ids);
    }

    @Override
    public ShardStats stats(int shard) {
        return parts.reads().stats(shard);
    }

    @Override
    public long now() {
        return parts.reads().now();
    }

    // ----------------------------------------------------------------------------------------------- wake-ups

    @Override
    public void onWake(WakeListener listener) {
        parts.wakeListeners().add(listener);
    }

    // ----------------------------------------------------------------------------------------------- lifecycle

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            parts.wakeSubscription().close();
            access.connections().close();
        }
    }

    /** What the store's parts share, for tests in this package that look at its keys. */
    StoreAccess access() {
        return access;
    }
}

package io.delaybridge.bridge.store;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

/**
 * Where pending messages live between intake and delivery.
 *
 * <p>A store is bound to one intake topic and a fixed number of shards. Shard {@code N} holds what came in on intake
 * partition {@code N}; a message with an explicit {@code delay-id} lives in the shard its id hashes to, so a cancel or
 * a replacement finds it from any intake partition ({@link ShardRouter}). The instance that owns intake partition
 * {@code N} in the consumer group pumps shard {@code N}, proving it with a fencing epoch from {@link #acquire(int)}.
 *
 * <p>Every state change is one atomic operation. Claims are two-phase: {@link #claim} moves due messages into an
 * in-flight set under a lease; {@link #ack} deletes them once Kafka acknowledged the send; {@link #retry} puts one
 * back with a later due time; {@link #reclaim} returns messages whose lease expired (their claimer died).
 *
 * <p>Methods throw {@link StoreException} subclasses: {@link StoreUnavailableException} is transient (retry with
 * backoff), {@link StoreFencedException} means the shard has a newer owner (stop pumping it).
 */
public interface DelayStore extends AutoCloseable {

    /** The number of shards (fixed when the store was first initialised). */
    int shardCount();

    /**
     * Applies a batch of intake operations, pipelined, in order. The future completes when Redis acknowledged every one
     * of them durably (and, if configured, the replicas did), with one result per operation, in order.
     *
     * <p>It fails with {@link StoreUnavailableException} when Redis is unreachable, full or too slow: some operations
     * may have been applied, and writing the whole batch again is safe (schedules are idempotent on (id, origin), a
     * repeated cancel finds nothing). {@link StoreDataLostException} means Redis lost the data written before: stop.
     * Does not block; the future completes on a store I/O thread, so do not block in callbacks chained to it.
     */
    CompletableFuture<List<WriteResult>> write(List<WriteOp> ops);

    /**
     * The epoch this instance's intake writes into {@code shard} are fenced by now: the one it took for the shard while
     * it holds the shard's intake partition; negative if none (the write is not fenced).
     */
    long writeFence(int shard);

    /**
     * As {@link #write(List)}, each schedule into {@code shard} fenced by {@code epoch} (when not negative) instead of
     * {@link #writeFence}: a write decided while this instance held the shard under {@code epoch} (an express record it
     * parks after its send failed) fails with {@link StoreFencedException} once another owner took the shard, even if
     * this instance let the shard go meanwhile and its other writes into the shard are no longer fenced.
     */
    CompletableFuture<List<WriteResult>> write(List<WriteOp> ops, int shard, long epoch);

    /**
     * As {@link #write(List)}, then writes the intake's position {@code marks} behind the operations, in the same
     * pipeline, behind the batch's writes on every node they went to (on one server: the partition's home shard; on a
     * cluster: every shard), so a replica that has a mark has every write of the batch on its node before it. A mark whose stored position is below its {@link PositionMark#expected} is not advanced, and the
     * future fails with {@link StoreGapException} naming every such partition, once the rest of the batch completed.
     * With no operations and no marks it completes at once.
     */
    CompletableFuture<List<WriteResult>> write(List<WriteOp> ops, List<PositionMark> marks);

    /**
     * The stored positions of intake partitions (see {@link PositionMark}): every record below it is stored. A
     * partition without a position (a new store, or written only by a bridge that did not mark positions) is absent.
     * Blocks until Redis answers.
     */
    Map<Integer, Long> positions(Collection<Integer> partitions);

    /**
     * As {@link #write(List, List)}, and then, in the same pipeline and after the writes and marks (on a cluster over
     * the same node links), the express checks: per record, whether the store knows nothing of its id (no stored
     * value, no in-flight entry, no remembered cancel) and holds no message of its shard that the record could overtake
     * (the shard's earliest due time is later than the record's, and nothing is in flight). Read-only. A store that
     * cannot check parks every record (no check passes).
     */
    default CompletableFuture<WrittenBatch> write(
            List<WriteOp> ops, List<PositionMark> marks, List<ExpressCheck> checks) {
        return write(ops, marks).thenApply(WrittenBatch::parkAll);
    }

    /**
     * Takes ownership of a shard: returns a new fencing epoch; every older epoch is refused from now on. What older
     * owners left in flight can no longer be acked by them, so it is due again at once (its attempt counted), instead
     * of after its lease: a shard taken over after a crash delivers within seconds. A graceful hand-over leaves nothing
     * in flight (the old owner drains first), so this delivers nothing twice.
     */
    long acquire(int shard);

    /**
     * Moves up to {@code max} messages due at Redis' clock from the due set to the in-flight set, with a lease until
     * now + {@code leaseMillis}, oldest due first, and returns them with the shard's next due time.
     */
    ClaimBatch claim(int shard, long epoch, int max, long leaseMillis);

    /**
     * As {@link #claim}, without blocking, and taking also the messages due up to {@code lookAheadMillis} after
     * Redis' clock (0: only what is due): the caller sends those at their due time, which it must tell from
     * {@link ClaimBatch#redisNow}. Claims of several shards issued one after the other travel to Redis pipelined.
     * The future fails with a {@link StoreException}; it completes on a store I/O thread.
     */
    CompletableFuture<ClaimBatch> claimAsync(int shard, long epoch, int max, long leaseMillis, long lookAheadMillis);

    /** Deletes delivered messages (payload, in-flight entry, attempt count). Returns how many were in flight. */
    int ack(int shard, long epoch, List<MessageRef> delivered);

    /** As {@link #ack}, without blocking; the future fails with a {@link StoreException}. */
    CompletableFuture<Integer> ackAsync(int shard, long epoch, List<MessageRef> delivered);

    /**
     * Settles delivered (or skipped) occurrences of series and, in the same step, stores each one's next occurrence
     * ({@link SeriesStep}), or deletes a series that is over. A message no longer in flight (replaced, cancelled or
     * reclaimed meanwhile) is left as it is. Returns, without blocking, how many were in flight; the future fails with
     * a {@link StoreException}.
     */
    CompletableFuture<Integer> settleSeriesAsync(int shard, long epoch, List<SeriesStep> steps);

    /** Moves an in-flight message back to the due set, due at {@code retryAtMillis}, its attempt count plus one. */
    boolean retry(int shard, long epoch, MessageRef message, long retryAtMillis);

    /**
     * Moves in-flight messages back to the due set, each at the due time it was claimed with, without counting an
     * attempt (they were never sent): a rate cap held them back. Publishes no wake-up. Returns, without blocking, how
     * many were still in flight; the future fails with a {@link StoreException}.
     */
    default CompletableFuture<Integer> handBackAsync(int shard, long epoch, List<ClaimedMessage> messages) {
        return parkAsync(
                shard,
                epoch,
                messages.stream().map(m -> new Parked(m, m.dueAt())).toList());
    }

    /**
     * Moves in-flight messages back to the due set, each claimable again from its {@link Parked#untilMillis} (Redis
     * time) and claimed then with the due time it was claimed with before; no attempt counted. For messages a rate cap
     * holds back until their target has tokens: until then no claim takes them, so they hold up nothing else of the
     * shard. Publishes no wake-up. Returns, without blocking, how many were still in flight; the future fails with a
     * {@link StoreException}.
     */
    CompletableFuture<Integer> parkAsync(int shard, long epoch, List<Parked> messages);

    /** A claimed message to hand back, claimable again from {@code untilMillis} (its due time: at once). */
    record Parked(ClaimedMessage message, long untilMillis) {}

    /** Returns up to {@code max} in-flight messages whose lease expired to the due set, due now. Returns how many. */
    int reclaim(int shard, long epoch, int max);

    /**
     * Returns up to {@code max} in-flight messages to the due set, due now, whatever their lease; returns how many. For
     * an owner whose claim ran in Redis but whose answer was lost (the connection broke): nobody sends what that claim
     * took, and waiting for its lease would hold the messages back for {@code pump.lease}. Only while the owner has no
     * other message of the shard on its way: it returns those too.
     */
    int reclaimAll(int shard, long epoch, int max);

    /**
     * The messages stored under {@code ids} in {@code shard}, due or in flight, as a claim would read them (due time
     * and attempt not read: 0); null for an id the shard does not hold. Returns without blocking; the future fails
     * with a {@link StoreException}.
     */
    CompletableFuture<List<ClaimedMessage>> peekAsync(int shard, List<String> ids);

    /** The earliest due time in the shard, if it holds any due (not in-flight) message. */
    OptionalLong nextDueAt(int shard);

    /** Counts of a shard: pending (due set) and in flight. */
    ShardStats stats(int shard);

    /** Redis' clock, epoch milliseconds: the one clock that every instance agrees on. */
    long now();

    /**
     * A random id created with the store's data. The intake records it beside its committed offsets: a different value
     * there means Redis lost the data those offsets promise (it came back empty), and the bridge must not go on.
     */
    String incarnation();

    /**
     * Registers the listener that is called (on a store I/O thread) when a shard's earliest due time moved earlier. The
     * listener must return quickly and must not call the store: signal the pump's thread instead. Wake-ups are
     * best-effort (a reconnect can miss some), so a pump still sleeps no longer than until the next due time it knows.
     */
    void onWake(WakeListener listener);

    @Override
    void close();
}

package io.delaybridge.bridge.pump;

import io.delaybridge.bridge.store.ClaimBatch;
import io.delaybridge.bridge.store.ClaimedMessage;
import io.delaybridge.bridge.store.DelayStore;
import io.delaybridge.bridge.store.MessageRef;
import io.delaybridge.bridge.store.PositionMark;
import io.delaybridge.bridge.store.SeriesStep;
import io.delaybridge.bridge.store.ShardStats;
import io.delaybridge.bridge.store.WakeListener;
import io.delaybridge.bridge.store.WriteOp;
import io.delaybridge.bridge.store.WriteResult;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The store as the pump sees it, with single shards paused: a claim on a paused shard takes nothing, so its messages
 * stay pending (and visible in the admin API) while the other shards flow. Acks, retries and lease reclaims go on, so
 * what was in flight when the pause began finishes. Resuming wakes the pump for the shard at once.
 *
 * <p>Pausing every shard is {@link Pump#setPaused}; this class adds the per-shard switch without touching the pump's
 * loop. Thread-safe.
 */
public final class PausableStore implements DelayStore {

    private final DelayStore delegate;
    private final Set<Integer> paused = new ConcurrentSkipListSet<>();
    private final List<WakeListener> listeners = new CopyOnWriteArrayList<>();

    public PausableStore(DelayStore delegate) {
        this.delegate = delegate;
    }

    public void pause(int shard) {
        checkShard(shard);
        paused.add(shard);
    }

    public void resume(int shard) {
        checkShard(shard);
        if (paused.remove(shard)) {
            for (WakeListener listener : listeners) {
                listener.wake(shard, 0); // due "long ago": the pump claims at once
            }
        }
    }

    public boolean isPaused(int shard) {
        return paused.contains(shard);
    }

    public Set<Integer> pausedShards() {
        return new TreeSet<>(paused);
    }

    private void checkShard(int shard) {
        if (shard < 0 || shard >= delegate.shardCount()) {
            throw new IllegalArgumentException(
                    "shard " + shard + " does not exist: the store has shards 0.." + (delegate.shardCount() - 1));
        }
    }

    @Override
    public ClaimBatch claim(int shard, long epoch, int max, long leaseMillis) {
        return paused.contains(shard) ? pausedClaim() : delegate.claim(shard, epoch, max, leaseMillis);
    }

    @Override
    public CompletableFuture<ClaimBatch> claimAsync(
            int shard, long epoch, int max, long leaseMillis, long lookAheadMillis) {
        return paused.contains(shard)
                ? CompletableFuture.completedFuture(pausedClaim())
                : delegate.claimAsync(shard, epoch, max, leaseMillis, lookAheadMillis);
    }

    /** A paused shard's claim: nothing, and no next due time, so the pump waits for the wake-up of resume(). */
    private ClaimBatch pausedClaim() {
        return new ClaimBatch(List.of(), -1, delegate.now());
    }

    @Override
    public void onWake(WakeListener listener) {
        listeners.add(listener);
        delegate.onWake(listener);
    }

    @Override
    public int shardCount() {
        return delegate.shardCount();
    }

    @Override
    public CompletableFuture<List<WriteResult>> write(List<WriteOp> ops) {
        return delegate.write(ops);
    }

    @Override
    public CompletableFuture<List<WriteResult>> write(List<WriteOp> ops, List<PositionMark> marks) {
        return delegate.write(ops, marks);
    }

    @Override
    public Map<Integer, Long> positions(Collection<Integer> partitions) {
        return delegate.positions(partitions);
    }

    @Override
    public long acquire(int shard) {
        return delegate.acquire(shard);
    }

    @Override
    public int ack(int shard, long epoch, List<MessageRef> delivered) {
        return delegate.ack(shard, epoch, delivered);
    }

    @Override
    public CompletableFuture<Integer> ackAsync(int shard, long epoch, List<MessageRef> delivered) {
        return delegate.ackAsync(shard, epoch, delivered);
    }

    @Override
    public CompletableFuture<Integer> settleSeriesAsync(int shard, long epoch, List<SeriesStep> steps) {
        return delegate.settleSeriesAsync(shard, epoch, steps);
    }

    @Override
    public boolean retry(int shard, long epoch, MessageRef message, long retryAtMillis) {
        return delegate.retry(shard, epoch, message, retryAtMillis);
    }

    @Override
    public CompletableFuture<Integer> handBackAsync(int shard, long epoch, List<ClaimedMessage> messages) {
        return delegate.handBackAsync(shard, epoch, messages);
    }

    @Override
    public int reclaim(int shard, long epoch, int max) {
        return delegate.reclaim(shard, epoch, max);
    }

    @Override
    public int reclaimAll(int shard, long epoch, int max) {
        return delegate.reclaimAll(shard, epoch, max);
    }

    @Override
    public OptionalLong nextDueAt(int shard) {
        return delegate.nextDueAt(shard);
    }

    @Override
    public ShardStats stats(int shard) {
        return delegate.stats(shard);
    }

    @Override
    public long now() {
        return delegate.now();
    }

    @Override
    public String incarnation() {
        return delegate.incarnation();
    }

    @Override
    public void close() {
        delegate.close();
    }
}

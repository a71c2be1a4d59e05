package io.delaybridge.bridge.pump;

import io.delaybridge.bridge.delivery.DeliveryPauses;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentSkipListSet;

/**
 * The pump's pauses, set by an operator: the whole pump, or single shards. A paused shard's claim takes nothing, so
 * its messages stay pending (and visible in the admin API) while the other shards flow; acks, retries and lease
 * reclaims go on, so what was in flight when the pause began finishes. Resuming wakes the pump at once. As {@link
 * DeliveryPauses} it tells the express path which shards' records to park instead of sending. Thread-safe.
 */
public final class PumpPauses implements DeliveryPauses {

    private final int shardCount;
    private final Wakeups wakeups;
    private final ShardOwnership owned;
    private final Set<Integer> shards = new ConcurrentSkipListSet<>();
    private volatile boolean all;

    PumpPauses(int shardCount, Wakeups wakeups, ShardOwnership owned) {
        this.shardCount = shardCount;
        this.wakeups = wakeups;
        this.owned = owned;
    }

    /** Stops or restarts claiming on every shard; messages already in flight still finish. */
    public void setPaused(boolean paused) {
        this.all = paused;
        wakeups.signal();
    }

    /** Whether the whole pump is paused. */
    public boolean paused() {
        return all;
    }

    /** True while nothing of {@code shard} may be delivered: the pump, or the shard, is paused. */
    @Override
    public boolean paused(int shard) {
        return all || shards.contains(shard);
    }

    public void pause(int shard) {
        checkShard(shard);
        shards.add(shard);
    }

    public void resume(int shard) {
        checkShard(shard);
        if (shards.remove(shard)) {
            owned.woken(shard, 0); // due "long ago": the pump claims at once
        }
    }

    /** Whether {@code shard} alone is paused. */
    public boolean isPaused(int shard) {
        return shards.contains(shard);
    }

    /** The shards paused alone. */
    public Set<Integer> pausedShards() {
        return new TreeSet<>(shards);
    }

    public int shardCount() {
        return shardCount;
    }

    private void checkShard(int shard) {
        if (shard < 0 || shard >= shardCount) {
            throw new IllegalArgumentException(
                    "shard " + shard + " does not exist: the store has shards 0.." + (shardCount - 1));
        }
    }
}

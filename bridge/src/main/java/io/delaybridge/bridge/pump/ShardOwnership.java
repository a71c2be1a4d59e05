package io.delaybridge.bridge.pump;

import io.delaybridge.bridge.store.DelayStore;
import io.delaybridge.bridge.store.StoreFencedException;
import io.delaybridge.bridge.time.Time;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The shards this instance pumps: taken over when the consumer group assigns their intake partitions, let go when it
 * revokes them (after their in-flight messages are finished) or when Redis says a newer owner fenced them. Assign and
 * revoke run on the intake's thread, the rest on the pump's.
 */
final class ShardOwnership {

    private static final Logger LOG = LoggerFactory.getLogger(ShardOwnership.class);

    private final Map<Integer, OwnedShard> owned = new ConcurrentHashMap<>();
    private final Map<Integer, Long> writeFences = new ConcurrentHashMap<>();
    private final DelayStore store;
    private final PumpSettings settings;
    private final PumpMetrics metrics;
    private final Wakeups wakeups;
    private final Time time;

    ShardOwnership(DelayStore store, PumpSettings settings, PumpMetrics metrics, Wakeups wakeups, Time time) {
        this.store = store;
        this.settings = settings;
        this.metrics = metrics;
        this.wakeups = wakeups;
        this.time = time;
    }

    /** Takes over shards; their fencing epochs are taken later, on the pump's thread. */
    void assign(Collection<Integer> shards) {
        for (int shard : shards) {
            if (shard >= store.shardCount()) {
                LOG.warn(
                        "Intake partition {} has no shard (the store has {} shards): nothing to pump for it",
                        shard,
                        store.shardCount());
                continue;
            }
            owned.put(shard, new OwnedShard(shard, time.nanoseconds()));
        }
        wakeups.signal();
    }

    /**
     * Stops claiming in shards and waits, up to {@code drainNanos} (or while {@code running} holds), until their
     * in-flight messages are finished; then lets them go.
     */
    void revoke(Collection<Integer> shards, long drainNanos, BooleanSupplier running) {
        shards.forEach(writeFences::remove); // the intake wrote what it had (or dropped it): its next owner writes on
        List<OwnedShard> leaving = new ArrayList<>();
        for (int shard : shards) {
            OwnedShard state = owned.get(shard);
            if (state != null) {
                state.revoked = true;
                leaving.add(state);
            }
        }
        wakeups.signal();
        boolean drained = wakeups.awaitUntilTrue(
                () -> !running.getAsBoolean() || leaving.stream().allMatch(s -> s.outstanding.get() == 0), drainNanos);
        if (!drained) {
            LOG.warn("Shards {} still had messages in flight when revoked; their leases return them", shards);
        }
        for (OwnedShard state : leaving) {
            owned.remove(state.shard, state);
        }
        if (!leaving.isEmpty()) {
            LOG.info("Stopped pumping shards {}", shards);
        }
    }

    /**
     * A fenced shard has a newer owner: stop pumping it. Its write fence stays until the intake lets the partition go
     * ({@link #revoke}): the intake may not know yet, and its writes must fail too.
     */
    void letGo(OwnedShard shard, StoreFencedException e) {
        LOG.warn(e.getMessage());
        shard.revoked = true;
        owned.remove(shard.shard, shard);
    }

    /** The shard's epoch was taken: the intake's writes into it are fenced by it from now on. */
    void took(OwnedShard shard, long epoch) {
        shard.epoch = epoch;
        writeFences.put(shard.shard, epoch);
    }

    /**
     * The epoch this instance took last for {@code shard}, while its intake partition is assigned here; -1 if none. The
     * store fences the intake's writes by it (a zombie's poll, written after the shard's new owner delivered it, would
     * otherwise be delivered again).
     */
    long writeFence(int shard) {
        return writeFences.getOrDefault(shard, -1L);
    }

    /**
     * Returns the shard's expired leases every half lease, and claims the shard then. Redis' clock decides which
     * leases expired; the interval is timed on this host's monotonic clock, because the pump learns its clock's offset
     * from Redis only with its first claim (a reclaim time computed before that, with a host clock an hour fast, lay
     * an hour late).
     */
    void reclaimIfDue(OwnedShard shard) {
        if (time.nanoseconds() - shard.reclaimAtNanos < 0) {
            return;
        }
        int returned = store.reclaim(shard.shard, shard.epoch, settings.batchSize());
        // claimed now whatever came back: the store's wake-ups are best-effort, and one missed (a reconnect) would
        // leave a message that became the shard's earliest unclaimed until the next write woke the pump
        returned(shard, returned, "their leases expired");
        shard.reclaimAtNanos = time.nanoseconds()
                + (returned == settings.batchSize() ? 0 : TimeUnit.MILLISECONDS.toNanos(settings.leaseMillis() / 2));
    }

    /**
     * Returns to the due set what a claim whose answer was lost left in flight ({@link OwnedShard#claimAnswerLost}),
     * once nothing else of the shard is on its way from this instance (those messages are in flight too, and are being
     * sent). Returns whether the shard may be claimed now; until then it is left out of the cycle.
     */
    boolean returnLostClaims(OwnedShard shard) {
        if (!shard.claimAnswerLost) {
            return true;
        }
        if (shard.outstanding.get() != 0) {
            return false;
        }
        int returned = 0;
        int moved;
        do {
            moved = store.reclaimAll(shard.shard, shard.epoch, settings.batchSize());
            returned += moved;
        } while (moved == settings.batchSize());
        shard.claimAnswerLost = false;
        returned(shard, returned, "a claim whose answer was lost had left them in flight");
        return true;
    }

    /** {@code count} in-flight messages went back to the shard's due set: count them, say why, claim again. */
    private void returned(OwnedShard shard, int count, String why) {
        if (count > 0) {
            metrics.reclaimed.mark(count);
            LOG.info("Returned {} messages to shard {}: {}", count, shard.shard, why);
        }
        shard.nextDueAt = Long.MIN_VALUE;
    }

    /** A shard received a message due at {@code dueAt}, earlier than all it held: wake the pump if it is ours. */
    void woken(int shard, long dueAt) {
        OwnedShard state = owned.get(shard);
        if (state != null) {
            state.woken(dueAt);
            wakeups.signal();
        }
    }

    boolean isEmpty() {
        return owned.isEmpty();
    }

    /** The shards held and not being revoked. */
    List<OwnedShard> live() {
        List<OwnedShard> live = new ArrayList<>(owned.size());
        for (OwnedShard shard : owned.values()) {
            if (!shard.revoked) {
                live.add(shard);
            }
        }
        return live;
    }

    /**
     * The fencing epochs of the shards held, not being revoked, and whose epoch was taken: what another part of this
     * instance (the far tier's thaw) may write under. Sorted by shard.
     */
    Map<Integer, Long> epochs() {
        Map<Integer, Long> epochs = new TreeMap<>();
        for (OwnedShard shard : owned.values()) {
            long epoch = shard.epoch;
            if (!shard.revoked && epoch != OwnedShard.NOT_ACQUIRED) {
                epochs.put(shard.shard, epoch);
            }
        }
        return epochs;
    }

    /** The numbers of the shards held and not being revoked, in order. */
    List<Integer> numbers() {
        return owned.values().stream()
                .filter(s -> !s.revoked)
                .map(s -> s.shard)
                .sorted()
                .toList();
    }
}

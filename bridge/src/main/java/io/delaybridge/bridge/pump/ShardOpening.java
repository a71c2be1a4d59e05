package io.delaybridge.bridge.pump;

import io.delaybridge.bridge.delivery.Delivery;
import io.delaybridge.bridge.errors.Failures;
import io.delaybridge.bridge.store.DelayStore;
import io.delaybridge.bridge.store.StoreException;
import io.delaybridge.bridge.store.StoreFencedException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes an assigned shard ready for claims, on the pump's thread: its fencing epoch taken in Redis (which also fences
 * the intake's writes into it, {@link ShardOwnership#took}), then its delivery opened; with exactly once that fences
 * the shard's other writers of transactions and learns what committed transactions delivered. And the reverse when a
 * newer owner fenced the shard: let it go.
 */
final class ShardOpening {

    private static final Logger LOG = LoggerFactory.getLogger(ShardOpening.class);

    private final DelayStore store;
    private final Delivery delivery;
    private final ShardOwnership owned;
    private final int reclaimBatch;
    private final long retryMillis;
    private final ThrottledWarning warnings;

    ShardOpening(
            DelayStore store,
            Delivery delivery,
            ShardOwnership owned,
            int reclaimBatch,
            long retryMillis,
            ThrottledWarning warnings) {
        this.store = store;
        this.delivery = delivery;
        this.owned = owned;
        this.reclaimBatch = reclaimBatch;
        this.retryMillis = retryMillis;
        this.warnings = warnings;
    }

    /**
     * The shards of {@code shards} that may be claimed now, in their order: epochs taken, deliveries open. The
     * deliveries of every shard not yet open are opened together: with exactly once each opening fences the shard's
     * other writers (aborting what a dead owner left open), and no shard taken waits for another's opening.
     */
    List<OwnedShard> ready(List<OwnedShard> shards) {
        Map<Integer, OwnedShard> opening = new LinkedHashMap<>();
        Set<OwnedShard> ready = new HashSet<>();
        for (OwnedShard shard : shards) {
            if (!acquired(shard)) {
                continue;
            }
            if (shard.deliveryOpened && delivery.shardOpen(shard.shard)) {
                ready.add(shard);
            } else if (provedToReopen(shard)) {
                // the first opening once the epoch is taken, even if the intake opened the shard at its assignment:
                // with exactly once it fences every other writer of the shard's transactions again, now that none
                // can prove an epoch, and reads what they committed meanwhile
                opening.put(shard.shard, shard);
            }
        }
        if (!opening.isEmpty()) {
            Map<Integer, RuntimeException> failed = delivery.openShards(opening.keySet());
            for (OwnedShard shard : opening.values()) {
                RuntimeException e = failed.get(shard.shard);
                if (e == null) {
                    shard.deliveryOpened = true;
                    ready.add(shard);
                } else {
                    warnings.warn(
                            "Could not open the delivery of shard {} yet, retrying every {} ms: {}",
                            shard.shard,
                            retryMillis,
                            Failures.describe(e));
                }
            }
        }
        List<OwnedShard> inOrder = new ArrayList<>(ready.size());
        for (OwnedShard shard : shards) {
            if (ready.contains(shard)) {
                inOrder.add(shard);
            }
        }
        return inOrder;
    }

    /** Whether the shard's fencing epoch is taken (taking it now if not); false to try again later. */
    private boolean acquired(OwnedShard shard) {
        if (shard.epoch != OwnedShard.NOT_ACQUIRED) {
            return true;
        }
        try {
            owned.took(shard, store.acquire(shard.shard));
            LOG.info("Pumping shard {} with epoch {}", shard.shard, shard.epoch);
            return true;
        } catch (StoreException e) {
            warnings.warn(
                    "Could not take shard {} yet, retrying every {} ms: {}", shard.shard, retryMillis, e.getMessage());
            return false;
        }
    }

    /**
     * Whether the shard's delivery may be opened: always before its first claim; again after a transaction failed
     * (exactly once) only once the epoch is proved in Redis (a reclaim, which any stale epoch makes fail), so a zombie
     * whose transaction was fenced does not fence the producer of the shard's new owner in turn.
     */
    private boolean provedToReopen(OwnedShard shard) {
        if (!shard.deliveryOpened) {
            return true;
        }
        try {
            store.reclaim(shard.shard, shard.epoch, reclaimBatch);
            return true;
        } catch (StoreFencedException e) {
            letGo(shard, e);
            return false;
        } catch (RuntimeException e) {
            warnings.warn(
                    "Could not prove shard {}'s epoch to open its delivery again, retrying every {} ms: {}",
                    shard.shard,
                    retryMillis,
                    Failures.describe(e));
            return false;
        }
    }

    /** A newer owner fenced the shard: stop pumping it, and abort what its delivery has open. */
    void letGo(OwnedShard shard, StoreFencedException e) {
        owned.letGo(shard, e);
        delivery.closeShard(shard.shard, false);
    }
}

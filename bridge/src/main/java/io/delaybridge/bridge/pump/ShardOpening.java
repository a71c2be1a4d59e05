package io.delaybridge.bridge.pump;

import io.delaybridge.bridge.delivery.Delivery;
import io.delaybridge.bridge.errors.Failures;
import io.delaybridge.bridge.store.DelayStore;
import io.delaybridge.bridge.store.StoreException;
import io.delaybridge.bridge.store.StoreFencedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes an assigned shard ready for claims, on the pump's thread: its fencing epoch taken in Redis (which also fences
 * the intake's writes into it, {@link ShardOwnership#took}), then its delivery opened; with exactly once that opens the
 * shard's transactional producer, fencing its earlier producers and learning what their committed transactions
 * delivered. And the reverse when a newer owner fenced the shard: let it go and abort what its delivery has open.
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

    /** Whether the shard may be claimed now: its epoch taken and its delivery open; false to try again later. */
    boolean ready(OwnedShard shard) {
        if (shard.epoch == OwnedShard.NOT_ACQUIRED) {
            try {
                owned.took(shard, store.acquire(shard.shard));
                LOG.info("Pumping shard {} with epoch {}", shard.shard, shard.epoch);
            } catch (StoreException e) {
                warnings.warn(
                        "Could not take shard {} yet, retrying every {} ms: {}",
                        shard.shard,
                        retryMillis,
                        e.getMessage());
                return false;
            }
        }
        return deliveryOpen(shard);
    }

    /**
     * Opens the shard's delivery before its first claim, and again after a transaction failed (exactly once: fences
     * the shard's earlier producers and learns what their committed transactions delivered). Before opening again, the
     * epoch is proved in Redis (a reclaim, which any stale epoch makes fail): a zombie whose transaction was fenced
     * must not fence the producer of the shard's new owner in turn.
     */
    private boolean deliveryOpen(OwnedShard shard) {
        if (delivery.shardOpen(shard.shard)) {
            return true;
        }
        try {
            if (shard.deliveryOpened) {
                store.reclaim(shard.shard, shard.epoch, reclaimBatch);
            }
            delivery.openShard(shard.shard);
            shard.deliveryOpened = true;
            return true;
        } catch (StoreFencedException e) {
            letGo(shard, e);
            return false;
        } catch (RuntimeException e) {
            warnings.warn(
                    "Could not open the delivery of shard {} yet, retrying every {} ms: {}",
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

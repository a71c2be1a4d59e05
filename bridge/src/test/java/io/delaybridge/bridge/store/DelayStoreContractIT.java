package io.delaybridge.bridge.store;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * The behaviour every {@link DelayStore} must have, run against each implementation by a subclass that provides a
 * fresh, empty store for intake topic {@value #TOPIC} with {@value #SHARDS} shards. The tests are grouped by concern,
 * one interface each: {@link StoreIntakeContract} (schedule, replacement, batches, express checks, position marks),
 * {@link StoreCancelContract}, {@link StorePumpContract} (claim, retry, hand-back, reclaim, wake-ups),
 * {@link StoreOwnershipContract} (epochs, fencing) and {@link StoreInspectionContract}; {@link StoreContract} holds
 * what they share. This class only opens and closes the store.
 *
 * <p>Time: due times are taken relative to {@link DelayStore#now()}, the store's clock; waits have deadlines.
 */
public abstract class DelayStoreContractIT
        implements StoreIntakeContract,
                StoreCancelContract,
                StorePumpContract,
                StoreOwnershipContract,
                StoreInspectionContract {

    protected final ShardRouter router = new ShardRouter(TOPIC, SHARDS);
    protected DelayStore store;

    @Override
    public DelayStore store() {
        return store;
    }

    @Override
    public ShardRouter router() {
        return router;
    }

    /** A new store over empty data: intake topic {@link #TOPIC}, {@link #SHARDS} shards. */
    protected abstract DelayStore newStore();

    @BeforeEach
    void openStore() {
        store = newStore();
    }

    @AfterEach
    void closeStore() {
        if (store != null) {
            store.close();
        }
    }
}

package io.delaybridge.bridge.store;

/** Permanent for this owner: another instance acquired the shard with a newer epoch. Stop pumping it. */
public class StoreFencedException extends StoreException {
    private final int shard;

    public StoreFencedException(int shard, long epoch, String operation) {
        super(operation + " on shard " + shard + " refused: epoch " + epoch
                + " is stale, another bridge instance owns the shard now");
        this.shard = shard;
    }

    public int shard() {
        return shard;
    }
}

package io.delaybridge.bridge.intake;

import java.util.Collection;

/**
 * Told which intake partitions this instance holds, so the shards that follow them are pumped here. Kept apart from
 * the pump so the intake does not depend on what comes after the store.
 */
public interface PartitionListener {

    void assigned(Collection<Integer> partitions);

    /** Returns once the partitions' shards are no longer worked on by this instance. */
    void revoked(Collection<Integer> partitions);
}

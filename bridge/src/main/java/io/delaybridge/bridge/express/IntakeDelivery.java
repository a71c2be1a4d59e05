package io.delaybridge.bridge.express;

import io.delaybridge.bridge.delivery.TransactionOffsets;
import io.delaybridge.bridge.store.DelayStore;
import io.delaybridge.bridge.time.RedisClock;
import io.delaybridge.schemas.IntakeOrigin;
import java.util.Collection;
import java.util.Map;

/**
 * The sending layer as the intake sees it: the {@link ExpressPath} it hands express records to and, with
 * {@code delivery.exactlyOnce}, what the shard transactions must hear of the intake's reads (records read again,
 * offsets carried in transactions, the floors below which a partition is never read). Partition n of the intake is
 * shard n.
 */
public interface IntakeDelivery {

    /** Whether sends go out in shard transactions ({@code delivery.exactlyOnce}). */
    boolean exactlyOnce();

    /** Each shard's transaction commits the intake offsets that {@code offsets} offers (exactly once; else nothing). */
    void carryOffsets(TransactionOffsets offsets);

    /**
     * Opens the shards of {@code partitions} for sending, together: exactly once, fences their other writers, which
     * aborts the transactions a dead owner left open, with the intake offsets they were committing (until then those
     * offsets hold up every read of the committed offsets). Blocking; returns the shards that could not be opened.
     */
    Map<Integer, RuntimeException> openShards(Collection<Integer> partitions);

    /** Per partition, the offset it must not be read from below (exactly once; else none). */
    Map<Integer, Long> intakeFloors(Collection<Integer> partitions);

    /** The records of {@code partition} from {@code from} to {@code last} are read again (exactly once). */
    void readAgain(int partition, long from, IntakeOrigin last);

    /**
     * A new express lane, holding a record at most {@code windowMillis} (plus a second) for its due time; it parks in
     * {@code store} and sends by {@code redisClock}'s lower bound.
     */
    ExpressPath express(long windowMillis, DelayStore store, ExpressPath.Meters meters, RedisClock redisClock);
}

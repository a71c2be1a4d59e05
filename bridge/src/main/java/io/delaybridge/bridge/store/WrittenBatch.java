package io.delaybridge.bridge.store;

import java.util.BitSet;
import java.util.List;

/**
 * What a write batch with express checks ({@link DelayStore#write(List, List)}) found.
 *
 * @param results     one result per write operation, in order
 * @param passed      bit {@code i} set: express check {@code i} passed (the store knows nothing of the id and holds
 *                    no message of its shard that it could overtake), so the record may be delivered from the intake
 * @param redisNow    Redis' clock (epoch ms) read by the checks, {@link Long#MIN_VALUE} if there were none
 * @param readAtNanos a monotonic time after that reading arrived: Redis' clock was at least {@code redisNow} then
 */
public record WrittenBatch(List<WriteResult> results, BitSet passed, long redisNow, long readAtNanos) {

    /** A batch without checks, or whose checks all park. */
    public static WrittenBatch parkAll(List<WriteResult> results) {
        return new WrittenBatch(results, new BitSet(), Long.MIN_VALUE, 0);
    }
}

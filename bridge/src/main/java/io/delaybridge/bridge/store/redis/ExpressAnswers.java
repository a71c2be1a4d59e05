package io.delaybridge.bridge.store.redis;

import io.delaybridge.bridge.store.StoreException;
import io.delaybridge.bridge.store.redis.WritePlan.Check;
import io.delaybridge.bridge.time.Time;
import java.util.BitSet;
import java.util.List;

/**
 * A write batch's express checks ({@code express.lua}) and what they found: which records passed, and the latest
 * Redis time a check read. Filled on the I/O thread before the batch completes.
 */
final class ExpressAnswers {

    final List<Check> checks;
    final BitSet passed = new BitSet();
    long redisNow = Long.MIN_VALUE;
    long readAtNanos;
    private final Time time;

    ExpressAnswers(List<Check> checks, Time time) {
        this.checks = checks;
        this.time = time;
    }

    /** Files one {@code express.lua} reply: {now, earliestDue, inflightCount, known...}. */
    void fill(Check c, List<?> reply) {
        if (reply.size() == 1 && (Long) reply.get(0) < 0) {
            throw ScriptCodes.failure(
                    (Long) reply.get(0),
                    "express check",
                    c.shard(),
                    -1,
                    c.checks().get(0).id());
        }
        long now = (Long) reply.get(0);
        long earliest = (Long) reply.get(1);
        long inFlight = (Long) reply.get(2);
        if (reply.size() != c.checks().size() + 3) {
            throw new StoreException(c.describe() + " returned " + reply.size() + " values for "
                    + c.checks().size() + " members: the Lua scripts and the bridge do not match. This is a bug in"
                    + " the bridge.");
        }
        redisNow = Math.max(redisNow, now);
        readAtNanos = time.nanoseconds();
        for (int i = 0; i < c.checks().size(); i++) {
            long due = c.checks().get(i).dueAt();
            boolean unknown = (Long) reply.get(3 + i) == 0;
            // equal due times keep their order: a stored message due at the same time goes first, so this parks
            passed.set(c.positions()[i], unknown && inFlight == 0 && (earliest < 0 || earliest > due));
        }
    }
}

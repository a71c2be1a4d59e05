package io.delaybridge.bridge.store.redis;

import io.delaybridge.bridge.store.PositionMark;
import io.delaybridge.bridge.store.StoreException;
import io.delaybridge.bridge.store.StoreGapException;
import io.delaybridge.bridge.store.WriteResult;
import io.delaybridge.bridge.store.WrittenBatch;
import io.delaybridge.bridge.store.redis.ScriptRunner.Script;
import io.delaybridge.bridge.store.redis.WritePlan.Call;
import io.delaybridge.bridge.store.redis.WritePlan.Check;
import io.delaybridge.bridge.time.Time;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * One batch on its way through {@link WritePipeline}, from dispatch to the last reply (and again after a NOSCRIPT),
 * and what its replies said, each filed on the I/O thread before the batch completes: each operation's result
 * ({@code schedule.lua}, {@code cancel.lua}); which intake partitions' stored positions were below what the intake
 * expected ({@code mark.lua}); which express records passed their check and the latest Redis time a check read
 * ({@code express.lua}). A call that ran before a NOSCRIPT of an earlier call runs again in the re-run; its first
 * answer stays.
 */
final class WriteBatch {

    /** The script calls, in dispatch order. */
    final List<Call> calls;
    /** The express checks behind them. */
    final List<Check> checks;
    /** Each operation's result, filled in as replies come. */
    final WriteResult[] results;
    /** Completed with {@link #results} once every reply (and WAIT) is in, or with the first failure. */
    final CompletableFuture<List<WriteResult>> result = new CompletableFuture<>();

    private final List<PositionMark> marks;
    private final Set<Integer> marksAnswered = new HashSet<>();
    private final long[] gapAt;

    private final BitSet passed = new BitSet();
    private long redisNow = Long.MIN_VALUE;
    private long readAtNanos;
    private final Time time;

    WriteBatch(List<Call> calls, List<Check> checks, int operations, List<PositionMark> marks, Time time) {
        this.calls = calls;
        this.checks = checks;
        this.results = new WriteResult[operations];
        this.marks = marks;
        this.gapAt = new long[marks.size()];
        Arrays.fill(gapAt, Long.MAX_VALUE);
        this.time = time;
    }

    /** Files the reply of call number {@code call}, {@code c}; a failure code throws. */
    void answer(int call, Call c, Object reply) {
        if (c.script() == Script.MARK) {
            answerMark(call, c, reply);
        } else if (results[c.positions()[0]] == null) {
            fillResults(c, reply, results);
        }
    }

    /** Files an operation call's reply under its operations' positions; a failure code throws. */
    private static void fillResults(Call c, Object reply, WriteResult[] results) {
        if (c.script() == Script.CANCEL) {
            results[c.positions()[0]] = ScriptCodes.writeResult(
                    (Long) reply, "cancel", c.shard(), c.ops().get(0).id());
            return;
        }
        List<?> codes = (List<?>) reply;
        if (codes.size() != c.ops().size() + 1) {
            long code = (Long) codes.get(0);
            throw ScriptCodes.failure(
                    code < 0 ? code : ScriptCodes.INVALID_ARGUMENT,
                    "schedule",
                    c.shard(),
                    -1,
                    c.ops().get(0).id());
        }
        for (int i = 0; i < c.ops().size(); i++) {
            results[c.positions()[i]] = ScriptCodes.writeResult(
                    (Long) codes.get(i), "schedule", c.shard(), c.ops().get(i).id());
        }
    }

    /** A {@code mark.lua} reply: {code1, position1, code2, ...}. */
    private synchronized void answerMark(int call, Call c, Object reply) {
        List<?> codes = (List<?>) reply;
        long head = codes.isEmpty() ? ScriptCodes.INVALID_ARGUMENT : (Long) codes.get(0);
        if (head < 0 || codes.size() != 2 * c.positions().length) {
            throw ScriptCodes.failure(
                    head < 0 ? head : ScriptCodes.INVALID_ARGUMENT,
                    "position mark of intake" + " partition "
                            + marks.get(c.positions()[0]).partition(),
                    c.shard(),
                    -1,
                    null);
        }
        if (!marksAnswered.add(call)) {
            return;
        }
        for (int j = 0; j < c.positions().length; j++) {
            if ((Long) codes.get(2 * j) == ScriptCodes.GAP) {
                int mark = c.positions()[j];
                gapAt[mark] = Math.min(gapAt[mark], (Long) codes.get(2 * j + 1));
            }
        }
    }

    /** The partitions whose stored position was below the expected one, with the lowest stored position found. */
    synchronized List<StoreGapException.Gap> gaps() {
        List<StoreGapException.Gap> gaps = new ArrayList<>();
        for (int i = 0; i < gapAt.length; i++) {
            if (gapAt[i] != Long.MAX_VALUE) {
                gaps.add(new StoreGapException.Gap(
                        marks.get(i).partition(), gapAt[i], marks.get(i).expected()));
            }
        }
        return gaps;
    }

    /** Files one {@code express.lua} reply: {now, earliestDue, inflightCount, known...}. */
    void answerCheck(Check c, List<?> reply) {
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

    /** The batch as the caller sees it once it completed with {@code results}. */
    WrittenBatch written(List<WriteResult> results) {
        return new WrittenBatch(results, passed, redisNow, readAtNanos);
    }
}

package io.delaybridge.bridge.store.redis;

import io.delaybridge.bridge.store.WriteResult;
import io.delaybridge.bridge.store.redis.WritePlan.Call;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One batch on its way through {@link WritePipeline}, from dispatch to the last reply (and again after a NOSCRIPT).
 *
 * @param calls   the script calls, in dispatch order
 * @param checked the express checks behind them, and their answers
 * @param results each operation's result, filled in as replies come
 * @param result  completed with {@code results} once every reply (and WAIT) is in, or with the first failure
 * @param answers the position marks' answers
 */
record WriteBatch(
        List<Call> calls,
        ExpressAnswers checked,
        WriteResult[] results,
        CompletableFuture<List<WriteResult>> result,
        MarkAnswers answers) {}

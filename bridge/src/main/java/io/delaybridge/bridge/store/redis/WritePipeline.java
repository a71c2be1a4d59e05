package io.delaybridge.bridge.store.redis;

import io.delaybridge.bridge.store.ExpressCheck;
import io.delaybridge.bridge.store.PositionMark;
import io.delaybridge.bridge.store.StoreException;
import io.delaybridge.bridge.store.StoreGapException;
import io.delaybridge.bridge.store.StoreUnavailableException;
import io.delaybridge.bridge.store.WriteOp;
import io.delaybridge.bridge.store.WriteResult;
import io.delaybridge.bridge.store.WrittenBatch;
import io.delaybridge.bridge.store.redis.ScriptRunner.Script;
import io.delaybridge.bridge.store.redis.WritePlan.Call;
import io.delaybridge.bridge.store.redis.WritePlan.Check;
import io.delaybridge.bridge.time.Time;
import io.lettuce.core.RedisFuture;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntToLongFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The intake's write path: each batch's script calls ({@link WritePlan}) are queued on the pipeline connection and
 * flushed at once, under a lock (two batches must not interleave). {@link #write} does not block: its future completes
 * on a Lettuce I/O thread.
 *
 * <p>With {@code waitReplicas > 0} the batch also waits for replicas: on one server a {@code WAIT} travels behind the
 * scripts; on a cluster, once the scripts answered, a {@code WAIT} goes to each master that took a write, on the
 * pipeline's own connection to that node (WAIT counts the writes of the connection it runs on).
 *
 * <p>Behind the writes go the intake's position marks ({@code mark.lua}), then the express checks ({@code
 * express.lua}, read-only), on the same connection: each sees every write queued before it on its shard (on a cluster
 * the pipeline keeps one link per node, in order). A NOSCRIPT on a check runs the checks again after loading the
 * scripts.
 */
final class WritePipeline {

    private static final Logger LOG = LoggerFactory.getLogger(WritePipeline.class);

    private final RedisConnections connections;
    private final ScriptRunner scripts;
    private final WritePlan plan;
    private final RedisKeys keys;
    private final RedisStoreOptions options;
    private final Time time;
    private final Object lock = new Object();
    /** Write batches dispatched on the pipeline connection so far. Guarded by {@code lock}. */
    private long dispatched;

    WritePipeline(RedisConnections connections, ScriptRunner scripts, WritePlan plan, RedisKeys keys, Time time) {
        this.time = time;
        this.connections = connections;
        this.scripts = scripts;
        this.plan = plan;
        this.keys = keys;
        this.options = connections.options();
    }

    CompletableFuture<List<WriteResult>> write(List<WriteOp> ops) {
        return write(ops, List.of());
    }

    /** As {@link #write(List)}, each schedule call fenced by {@code fences} instead of the instance's epochs now. */
    CompletableFuture<List<WriteResult>> write(List<WriteOp> ops, IntToLongFunction fences) {
        return run(plan.plan(ops, fences), ops.size());
    }

    /** As {@link #write(List)}, with the intake's position marks behind the operations ({@code mark.lua}). */
    CompletableFuture<List<WriteResult>> write(List<WriteOp> ops, List<PositionMark> marks) {
        return write(ops, marks, List.of()).thenApply(WrittenBatch::results);
    }

    /** The writes, the position marks, then the express checks, in one pipelined batch. */
    CompletableFuture<WrittenBatch> write(List<WriteOp> ops, List<PositionMark> marks, List<ExpressCheck> checks) {
        if (ops.isEmpty() && marks.isEmpty() && checks.isEmpty()) {
            return CompletableFuture.completedFuture(WrittenBatch.parkAll(List.of()));
        }
        List<Call> calls = new ArrayList<>(plan.plan(ops));
        calls.addAll(plan.marks(marks, connections.isCluster()));
        WriteBatch batch = new WriteBatch(calls, plan.planChecks(checks), ops.size(), marks, time);
        try {
            runBatch(batch, 0, -1);
        } catch (RuntimeException e) {
            batch.result.completeExceptionally(RedisErrors.translate(e, "write of " + ops.size() + " operations"));
        }
        return batch.result.thenApply(batch::written);
    }

    /**
     * Runs {@code calls} planned for {@code operations} operations elsewhere (the far tier's thaw, {@link
     * WritePlan#thaw}) as the intake's writes run: in dispatch order on the pipeline connection, again after a NOSCRIPT,
     * and behind a WAIT for {@code waitReplicas}. A fenced call fails the whole as {@code StoreFencedException}.
     */
    CompletableFuture<List<WriteResult>> run(List<Call> calls, int operations) {
        if (calls.isEmpty()) {
            return CompletableFuture.completedFuture(List.of());
        }
        WriteBatch batch = new WriteBatch(calls, plan.planChecks(List.of()), operations, List.of(), time);
        try {
            runBatch(batch, 0, -1);
        } catch (RuntimeException e) {
            batch.result.completeExceptionally(RedisErrors.translate(e, "write of " + operations + " operations"));
        }
        return batch.result;
    }

    /**
     * Queues {@code calls[from..]} (and, on one server, a WAIT) on the pipeline connection, flushes once, and completes
     * {@code result} when every reply is in. If Redis forgot the scripts (NOSCRIPT after a restart or a fail-over to a
     * node that never loaded them), loads them on every node and runs the batch again from the first call that failed
     * so: a NOSCRIPT call did not run, operations are idempotent, and running the rest again in order keeps their
     * order. That re-run happens only if no other batch was dispatched since this one ({@code rerunOf} is this batch's
     * dispatch number; -1 on the first run): a later batch may have run after the scripts were back, and this batch's
     * rest must not overtake it. Then the write fails as unavailable, and the caller writes this batch and those after
     * it again, in order.
     */
    private void runBatch(WriteBatch batch, int from, long rerunOf) {
        List<Call> calls = batch.calls;
        WriteResult[] results = batch.results;
        CompletableFuture<List<WriteResult>> result = batch.result;
        List<CompletableFuture<Object>> replies = new ArrayList<>(calls.size() - from);
        List<CompletableFuture<Object>> checkReplies = new ArrayList<>(batch.checks.size());
        CompletableFuture<Long> wait = null;
        long number;
        synchronized (lock) {
            if (rerunOf >= 0 && dispatched != rerunOf) {
                result.completeExceptionally(new StoreUnavailableException(
                        "write of " + results.length
                                + " operations: Redis forgot the store's Lua scripts (restart, fail-over or SCRIPT FLUSH) while"
                                + " later writes were on their way; write this batch and those after it again, in order.",
                        null));
                return;
            }
            for (int i = from; i < calls.size(); i++) {
                Call c = calls.get(i);
                RedisFuture<Object> reply = scripts.dispatch(connections.pipeline(), c.script(), c.keys(), c.args());
                replies.add(reply.toCompletableFuture());
            }
            for (Check c : batch.checks) {
                RedisFuture<Object> reply =
                        scripts.dispatch(connections.pipeline(), Script.EXPRESS, c.keys(), c.args());
                checkReplies.add(reply.toCompletableFuture());
            }
            if (options.waitReplicas() > 0 && connections.waitsInPipeline()) {
                wait = connections
                        .pipeline()
                        .waitForReplication(
                                options.waitReplicas(), options.waitTimeout().toMillis())
                        .toCompletableFuture();
            }
            connections.flushPipeline();
            number = ++dispatched;
        }
        List<CompletableFuture<?>> all = new ArrayList<>(replies);
        all.addAll(checkReplies);
        if (wait != null) {
            all.add(wait);
        }
        Map<String, CompletableFuture<Long>> waits = wait == null ? Map.of() : Map.of("", wait);
        CompletableFuture.allOf(all.stream().map(f -> f.handle((v, e) -> null)).toArray(CompletableFuture[]::new))
                .whenComplete((ignored, never) -> {
                    try {
                        completeBatch(batch, from, number, rerunOf < 0, replies, checkReplies, waits);
                    } catch (RuntimeException e) {
                        result.completeExceptionally(e);
                    }
                });
    }

    private void completeBatch(
            WriteBatch batch,
            int from,
            long number,
            boolean mayReload,
            List<CompletableFuture<Object>> replies,
            List<CompletableFuture<Object>> checkReplies,
            Map<String, CompletableFuture<Long>> waits) {
        List<Call> calls = batch.calls;
        CompletableFuture<List<WriteResult>> result = batch.result;
        int firstNoScript = -1;
        for (int i = 0; i < replies.size(); i++) {
            Call c = calls.get(from + i);
            CompletableFuture<Object> reply = replies.get(i);
            Throwable error = RedisCalls.failureOf(reply);
            if (error != null) {
                if (ScriptRunner.isNoScript(error)) {
                    if (firstNoScript < 0) {
                        firstNoScript = from + i;
                    }
                    continue;
                }
                result.completeExceptionally(RedisErrors.translate(
                        error,
                        c.describe() + " on Redis "
                                + connections.nodeOf(keys.shard(c.shard()).due())));
                return;
            }
            // a call that ran after one that hit NOSCRIPT runs again below, in order: its first answer stays
            try {
                batch.answer(from + i, c, reply.join());
            } catch (StoreException e) {
                result.completeExceptionally(e);
                return;
            }
        }
        for (int i = 0; firstNoScript < 0 && i < checkReplies.size(); i++) {
            Check c = batch.checks.get(i);
            Throwable error = RedisCalls.failureOf(checkReplies.get(i));
            if (error != null && ScriptRunner.isNoScript(error)) {
                firstNoScript = calls.size(); // the writes and marks are in: run the checks again
            } else if (error != null) {
                result.completeExceptionally(RedisErrors.translate(
                        error,
                        c.describe() + " on Redis "
                                + connections.nodeOf(keys.shard(c.shard()).due())));
                return;
            } else {
                try {
                    batch.answerCheck(c, (List<?>) checkReplies.get(i).join());
                } catch (StoreException e) {
                    result.completeExceptionally(e);
                    return;
                }
            }
        }
        if (firstNoScript >= 0) {
            reloadAndRerun(batch, firstNoScript, number, mayReload);
            return;
        }
        if (options.waitReplicas() > 0 && !connections.waitsInPipeline()) {
            waitOnNodes(batch);
            return;
        }
        finish(batch, waits);
    }

    private void reloadAndRerun(WriteBatch batch, int restart, long number, boolean mayReload) {
        CompletableFuture<List<WriteResult>> result = batch.result;
        if (!mayReload) {
            result.completeExceptionally(new StoreUnavailableException(
                    "write of " + batch.results.length
                            + " operations: Redis forgot the store's Lua scripts again right after they were loaded"
                            + " (SCRIPT FLUSH or restarts in a loop?). Retry with backoff.",
                    null));
            return;
        }
        LOG.info("Redis forgot the store's scripts (restart, fail-over or SCRIPT FLUSH): loading them again");
        scripts.loadAll(connections.commands()).whenComplete((v, e) -> {
            if (e != null) {
                result.completeExceptionally(RedisErrors.translate(e, "SCRIPT LOAD after NOSCRIPT"));
            } else {
                try {
                    runBatch(batch, restart, number);
                } catch (RuntimeException ex) {
                    result.completeExceptionally(RedisErrors.translate(ex, "write after SCRIPT LOAD"));
                }
            }
        });
    }

    /** Cluster: one WAIT per master that took a write of this batch, on the pipeline's connection to it. */
    private void waitOnNodes(WriteBatch batch) {
        Map<String, CompletableFuture<Long>> waits = new LinkedHashMap<>();
        for (Call c : batch.calls) {
            byte[] key = keys.shard(c.shard()).due();
            String node = connections.nodeOf(key);
            if (!waits.containsKey(node)) {
                waits.put(
                        node,
                        connections.waitOnMasterOf(
                                key,
                                options.waitReplicas(),
                                options.waitTimeout().toMillis()));
            }
        }
        CompletableFuture.allOf(waits.values().stream()
                        .map(f -> f.handle((v, e) -> null))
                        .toArray(CompletableFuture[]::new))
                .whenComplete((ignored, never) -> {
                    try {
                        finish(batch, waits);
                    } catch (RuntimeException e) {
                        batch.result.completeExceptionally(e);
                    }
                });
    }

    private void finish(WriteBatch batch, Map<String, CompletableFuture<Long>> waits) {
        WriteResult[] results = batch.results;
        CompletableFuture<List<WriteResult>> result = batch.result;
        for (Map.Entry<String, CompletableFuture<Long>> wait : waits.entrySet()) {
            String on = wait.getKey().isEmpty() ? "" : " on " + wait.getKey();
            Throwable error = RedisCalls.failureOf(wait.getValue());
            if (error != null) {
                result.completeExceptionally(RedisErrors.translate(error, "WAIT " + options.waitReplicas() + on));
                return;
            }
            long acked = wait.getValue().join();
            if (acked < options.waitReplicas()) {
                result.completeExceptionally(new StoreUnavailableException(
                        "write of " + results.length
                                + " operations: only " + acked + " of " + options.waitReplicas()
                                + " replicas (waitReplicas)"
                                + on + " acknowledged within "
                                + options.waitTimeout().toMillis() + " ms (waitTimeout). The"
                                + " writes are on the primary but not yet durable on replicas; retry (writes are idempotent)"
                                + " or lower waitReplicas.",
                        null));
                return;
            }
        }
        for (int i = 0; i < results.length; i++) {
            if (results[i] == null) {
                result.completeExceptionally(new IllegalStateException(
                        "no result for operation " + i + " of " + results.length + " in a write batch"));
                return;
            }
        }
        List<StoreGapException.Gap> gaps = batch.gaps();
        if (!gaps.isEmpty()) {
            result.completeExceptionally(new StoreGapException(gaps));
            return;
        }
        result.complete(List.of(results));
    }
}

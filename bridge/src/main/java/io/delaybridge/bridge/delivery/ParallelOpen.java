package io.delaybridge.bridge.delivery;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.IntConsumer;

/**
 * Opens several shards in parallel ({@code delay-shard-worker} threads): each opening's fence and log read is a wait on
 * brokers, and none waits for another's. Threads end when idle.
 */
final class ParallelOpen implements AutoCloseable {

    private final ExecutorService workers = Executors.newCachedThreadPool(runnable -> {
        Thread thread = new Thread(runnable, "delay-shard-worker");
        thread.setDaemon(true);
        return thread;
    });

    /** Runs {@code open} for each of {@code shards} at once; returns, once all ended, the failure of each that failed. */
    Map<Integer, RuntimeException> run(Collection<Integer> shards, IntConsumer open) {
        Map<Integer, CompletableFuture<Void>> opening = new HashMap<>();
        for (int shard : shards) {
            opening.put(shard, CompletableFuture.runAsync(() -> open.accept(shard), workers));
        }
        Map<Integer, RuntimeException> failed = new HashMap<>();
        opening.forEach((shard, done) -> {
            try {
                done.join();
            } catch (CompletionException e) {
                failed.put(shard, e.getCause() instanceof RuntimeException cause ? cause : e);
            }
        });
        return failed;
    }

    @Override
    public void close() {
        workers.shutdownNow();
    }
}

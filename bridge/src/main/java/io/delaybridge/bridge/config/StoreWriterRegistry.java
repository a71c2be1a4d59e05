package io.delaybridge.bridge.config;

import io.delaybridge.bridge.delivery.WriterRegistry;
import io.delaybridge.bridge.store.TransactionWriters;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** The store's registry of transaction writers ({@link TransactionWriters}) as delivery calls it: blocking, 30 s at most. */
final class StoreWriterRegistry implements WriterRegistry {

    private static final long TIMEOUT_SECONDS = 30;

    private final TransactionWriters writers;

    StoreWriterRegistry(TransactionWriters writers) {
        this.writers = writers;
    }

    @Override
    public List<String> register(int shard, String instance) {
        return await(writers.register(shard, instance), "recording this instance as a writer of shard " + shard);
    }

    @Override
    public void forget(int shard, Collection<String> fenced) {
        await(writers.forget(shard, fenced), "forgetting the fenced writers of shard " + shard);
    }

    private static <T> T await(CompletableFuture<T> call, String what) {
        try {
            return call.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while " + what, e);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException cause
                    ? cause
                    : new IllegalStateException(what + " failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException(what + " took longer than " + TIMEOUT_SECONDS + " s", e);
        }
    }
}

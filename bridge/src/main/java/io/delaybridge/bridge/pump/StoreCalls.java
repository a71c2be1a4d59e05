package io.delaybridge.bridge.pump;

import io.delaybridge.bridge.store.StoreUnavailableException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Waiting for the store's asynchronous calls. */
final class StoreCalls {

    private StoreCalls() {}

    /** Waits up to {@code timeoutMillis} (the lease) for a store call; a failure comes out as the store's exception. */
    static <T> T await(CompletableFuture<T> future, long timeoutMillis, String operation) {
        try {
            return future.get(timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            throw new StoreUnavailableException(operation + " failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new StoreUnavailableException(
                    operation + ": no answer within the lease (" + timeoutMillis + " ms)", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreUnavailableException(operation + " interrupted", e);
        }
    }
}

package io.delaybridge.bridge.admin.api;

import io.delaybridge.bridge.store.DelayStore;
import io.delaybridge.bridge.store.StoreException;
import io.delaybridge.bridge.store.StoreUnavailableException;
import io.delaybridge.bridge.store.WriteOp;
import io.delaybridge.bridge.store.WriteResult;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** The API's writes through the store's write path (cancels), awaited for at most 30 s. */
final class StoreWrites {

    private StoreWrites() {}

    static WriteResult write(DelayStore store, WriteOp op, String operation) {
        return writeAll(store, List.of(op), operation).get(0);
    }

    static List<WriteResult> writeAll(DelayStore store, List<WriteOp> ops, String operation) {
        if (ops.isEmpty()) {
            return List.of();
        }
        try {
            return store.write(ops).get(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreUnavailableException(operation + " interrupted", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof StoreException se) {
                throw se;
            }
            throw new StoreUnavailableException(operation + " failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new StoreUnavailableException(operation + ": no answer from Redis within 30 s", e);
        }
    }
}

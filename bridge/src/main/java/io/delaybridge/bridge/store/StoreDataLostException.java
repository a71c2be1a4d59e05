package io.delaybridge.bridge.store;

/**
 * Permanent: Redis no longer holds the data this store wrote (it was flushed, or restarted without its AOF, or a
 * Cluster node lost its data). Pending messages acknowledged to the intake may be gone. The store refuses to write
 * into the new, empty data set as if nothing happened: an operator decides whether to re-read the intake topic from an
 * earlier offset, and restarts the bridge.
 */
public class StoreDataLostException extends StoreException {
    public StoreDataLostException(String message) {
        super(message);
    }
}

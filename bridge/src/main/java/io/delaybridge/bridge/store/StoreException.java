package io.delaybridge.bridge.store;

/** A store operation failed. Subclasses say whether retrying can help. */
public class StoreException extends RuntimeException {
    public StoreException(String message) {
        super(message);
    }

    public StoreException(String message, Throwable cause) {
        super(message, cause);
    }
}

package io.delaybridge.bridge.store;

/** Transient: Redis did not answer, or answered that it cannot take writes now (OOM, loading). Retry with backoff. */
public class StoreUnavailableException extends StoreException {
    public StoreUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}

package io.delaybridge.bridge.delivery;

import org.apache.kafka.common.errors.RetriableException;

/**
 * A send that exactly once held back or took back, not one its target refused: its shard's transactions were being
 * opened again, an earlier send of it was still in a transaction, or another send's failure aborted the transaction
 * it was in. Retried after the first backoff whatever its attempt, and never deadlettered for it: no number of these
 * says anything about the target.
 */
public abstract class HeldBackException extends RetriableException {

    protected HeldBackException(String message) {
        super(message);
    }
}

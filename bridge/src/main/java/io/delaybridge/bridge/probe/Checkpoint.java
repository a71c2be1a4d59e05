package io.delaybridge.bridge.probe;

/**
 * Places in the record's way between two durable steps, where the work of the first is done and the second has not
 * begun: what a process that ends there leaves behind is what the bridge must recover from.
 */
public enum Checkpoint {
    /** The intake wrote a batch to Redis and the deadletter topic, and has not committed its offsets yet. */
    STORED_BEFORE_COMMIT,
    /** The pump claimed a batch (it is in flight under a lease) and has not sent any of it yet. */
    CLAIMED_BEFORE_SEND,
    /** The pump's producer acknowledged sends and the pump has not acked them in Redis yet. */
    SENT_BEFORE_ACK
}

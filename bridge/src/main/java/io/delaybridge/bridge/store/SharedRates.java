package io.delaybridge.bridge.store;

import java.util.concurrent.CompletableFuture;

/**
 * Delivery caps that hold for the service, not per instance: every instance takes its tokens from one state kept in
 * the store, so a cap of 100/s stays 100/s with one instance or ten, and with instances joining and leaving.
 */
public interface SharedRates {

    /** What one call took: {@code granted} tokens (0 to the number asked), and how long until the next is free. */
    record Grant(int granted, long waitMicros) {}

    /**
     * Takes up to {@code want} tokens of {@code target}'s cap of {@code perSecond} a second, at most {@code burst} at
     * once: over any window of w seconds all instances together take at most {@code burst + perSecond * w}.
     */
    CompletableFuture<Grant> take(String target, double perSecond, int burst, int want);
}

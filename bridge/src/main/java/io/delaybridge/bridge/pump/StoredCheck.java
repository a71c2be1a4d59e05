package io.delaybridge.bridge.pump;

import io.delaybridge.bridge.delivery.Delivery;
import io.delaybridge.bridge.store.ClaimedMessage;
import io.delaybridge.bridge.store.DelayStore;
import io.delaybridge.bridge.time.Time;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Exactly once remembers a delivered message whose ack Redis may not have carried out until the store no longer holds
 * it ({@link Delivery#toAsk}): a claim that came back short cannot tell, as such a message may wait out a retry, due
 * later, and a shard's new owner knows nothing of its predecessor's retries. After a short claim of a shard this asks
 * the store (one read of the shard's payloads, without waiting) and tells the delivery which are still stored under
 * the name they were delivered by; at most once a second a shard, as a message still stored may wait minutes. Pump
 * thread only.
 */
final class StoredCheck {

    private static final Logger LOG = LoggerFactory.getLogger(StoredCheck.class);

    /** The least time between two questions about one shard. */
    private static final long INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final DelayStore store;
    private final Delivery delivery;
    /** The name a stored message is remembered by ({@link MessageSender#key}). */
    private final Function<ClaimedMessage, String> key;

    private final Time time;
    /** Per shard, when the store was last asked ({@link Time#nanoseconds}); {@link Long#MIN_VALUE} if never. */
    private final long[] askedAt;

    StoredCheck(DelayStore store, Delivery delivery, Function<ClaimedMessage, String> key, Time time) {
        this.store = store;
        this.delivery = delivery;
        this.key = key;
        this.time = time;
        this.askedAt = new long[store.shardCount()];
        java.util.Arrays.fill(askedAt, Long.MIN_VALUE);
    }

    /** A claim of {@code shard} came back short: asks about what exactly once is ready to ask about, if anything. */
    void shortClaim(int shard) {
        long now = time.nanoseconds();
        if (askedAt[shard] != Long.MIN_VALUE && now - askedAt[shard] < INTERVAL_NANOS) {
            return;
        }
        List<String> asked = delivery.toAsk(shard);
        if (asked.isEmpty()) {
            return;
        }
        askedAt[shard] = now;
        List<String> ids = new ArrayList<>(asked.size());
        for (String name : asked) {
            ids.add(SeriesTurns.idOf(name));
        }
        java.util.concurrent.CompletableFuture<List<ClaimedMessage>> peek;
        try {
            peek = store.peekAsync(shard, ids);
        } catch (RuntimeException e) {
            peek = java.util.concurrent.CompletableFuture.failedFuture(e);
        }
        peek.whenComplete((found, error) -> {
            Set<String> stored = new HashSet<>();
            if (error != null) {
                LOG.debug(
                        "Shard {}: asking the store about {} delivered messages failed: {}", shard, ids.size(), error);
                stored.addAll(asked); // asked again after a later short claim
            } else {
                for (int i = 0; i < asked.size(); i++) {
                    ClaimedMessage message = found.get(i);
                    if (message != null && asked.get(i).equals(key.apply(message))) {
                        stored.add(asked.get(i));
                    }
                }
            }
            delivery.stored(shard, asked, stored::contains);
        });
    }
}

package io.delaybridge.bridge.pump;

import io.delaybridge.bridge.delivery.Delivery;
import io.delaybridge.bridge.store.ClaimedMessage;
import io.delaybridge.bridge.store.DelayStore;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Exactly once remembers a delivered message whose ack Redis may not have carried out until the store no longer holds
 * it ({@link Delivery#toAsk}): a claim that came back short cannot tell, as such a message may wait out a retry, due
 * later, and a shard's new owner knows nothing of its predecessor's retries. After a short claim of a shard this asks
 * the store (one read of the shard's payloads, without waiting) and tells the delivery which are still stored under
 * the name they were delivered by.
 */
final class StoredCheck {

    private static final Logger LOG = LoggerFactory.getLogger(StoredCheck.class);

    private final DelayStore store;
    private final Delivery delivery;
    /** The name a stored message is remembered by ({@link MessageSender#key}). */
    private final Function<ClaimedMessage, String> key;

    StoredCheck(DelayStore store, Delivery delivery, Function<ClaimedMessage, String> key) {
        this.store = store;
        this.delivery = delivery;
        this.key = key;
    }

    /** A claim of {@code shard} came back short: asks about what exactly once is ready to ask about, if anything. */
    void shortClaim(int shard) {
        List<String> asked = delivery.toAsk(shard);
        if (asked.isEmpty()) {
            return;
        }
        List<String> ids = new ArrayList<>(asked.size());
        for (String name : asked) {
            ids.add(SeriesTurns.idOf(name));
        }
        store.peekAsync(shard, ids).whenComplete((found, error) -> {
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

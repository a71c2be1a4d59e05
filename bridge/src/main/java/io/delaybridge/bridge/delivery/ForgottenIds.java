package io.delaybridge.bridge.delivery;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The last messages of a shard that {@link DeliveredIds} forgot, as a second line behind its rules: a copy of one that
 * comes back all the same (the same id from the same intake record) is acked, not delivered a second time, and
 * counted where it is reported, since it means a rule let an id go too early. Bounded: the oldest forgotten goes first, so at steady load
 * it covers the last seconds of deliveries (the copies its rules were written for come back within a claim or two).
 * Holds no connection; thread-safe.
 */
final class ForgottenIds {

    /** How many forgotten messages a shard keeps: at 5,000 deliveries a second over 16 shards, about 13 s of them. */
    static final int KEPT = 4_096;

    private final int kept;
    private final Map<String, Sends.Message> forgotten;
    private long caught;

    ForgottenIds(int kept) {
        this.kept = kept;
        this.forgotten = new LinkedHashMap<>(16, 0.75f, false) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Sends.Message> eldest) {
                return size() > ForgottenIds.this.kept;
            }
        };
    }

    /** {@code message} was forgotten: a committed transaction delivered it. */
    synchronized void forgot(Sends.Message message) {
        forgotten.put(message.id(), message);
    }

    /** Whether this very message ({@code id} from the intake record {@code origin}) was delivered and forgotten lately. */
    synchronized boolean holds(String id, String origin) {
        Sends.Message message = forgotten.get(id);
        return message != null && message.origin().equals(origin);
    }

    /** A copy of a forgotten message was caught (acked, not sent): returns how many were so far. */
    synchronized long caught() {
        return ++caught;
    }
}

package io.delaybridge.bridge.delivery;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * The ids of delivered messages whose acks Redis may not have carried out: those a shard's new owner learnt from the
 * delivered log when it opened the shard, and those of an ack that Redis answered with fewer deletions than ids (some
 * went back to the due set by their lease while being delivered). Their messages may be in the due set still, and
 * their intake records the intake may read and store again. A claim that takes one acks it instead of sending it. One that no claim takes was acked before, and is
 * forgotten only when it cannot come back: once the intake has committed past its record (a record read again is
 * stored before that commit) and two claims of the shard since came back short (every due message taken; the first
 * may have been issued before the record was stored again, the second was issued after the first came back, and a
 * delivered message is due). Forgotten at the first short claim, as before, a record the intake read again after it
 * was sent a second time. Holds no connection; thread-safe.
 */
final class LearntIds {

    /** Short claims after the intake committed past a record that make its id safe to forget. */
    static final int SHORT_CLAIMS = 2;

    /** Not committed past yet. */
    private static final int WAITING = -1;

    /** Id -> short claims seen since the intake was seen committed past its record ({@link #WAITING} until then). */
    private final Map<String, Integer> ids = new ConcurrentHashMap<>();

    void learn(String id) {
        ids.putIfAbsent(id, WAITING);
    }

    /** A claim took it, or Redis confirmed its ack: the delivered map's own rules take over. */
    void taken(String id) {
        ids.remove(id);
    }

    boolean isEmpty() {
        return ids.isEmpty();
    }

    /** The intake's commits as seen now: ids whose records it committed past start counting short claims. */
    void committedPast(Predicate<String> past) {
        ids.replaceAll((id, shortClaims) -> shortClaims == WAITING && past.test(id) ? 0 : shortClaims);
    }

    /**
     * A claim of the shard came back short (every due message taken); returns the ids to forget now. {@code notDue}:
     * ids whose messages wait in the due set for a later time (a retry's backoff): the claim says nothing of them.
     */
    List<String> shortClaim(Predicate<String> notDue) {
        List<String> forget = new ArrayList<>();
        for (Map.Entry<String, Integer> entry : ids.entrySet()) {
            int shortClaims = entry.getValue();
            if (shortClaims == WAITING || notDue.test(entry.getKey())) {
                continue;
            }
            if (shortClaims + 1 >= SHORT_CLAIMS) {
                forget.add(entry.getKey());
            } else {
                entry.setValue(shortClaims + 1);
            }
        }
        forget.forEach(ids::remove);
        return forget;
    }
}

package io.delaybridge.bridge.delivery;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * The ids of delivered messages whose acks Redis may not have carried out: those a shard's new owner learnt from the
 * delivered log when it opened the shard, and those of an ack that Redis answered with fewer deletions than ids (some
 * went back to the due set by their lease while being delivered). Their messages may still be stored, due now or
 * later (one that waits out a retry is due only after its backoff, and an owner that learnt it from the log cannot
 * know of that retry), and their intake records the intake may read and store again. A claim that takes one acks it
 * instead of sending it. One that no claim takes is forgotten only when it cannot come back: once the intake has
 * committed past its record (a record read again is stored before that commit), a look in the store made after that
 * ({@link #toAsk}) finds no message under its name. Holds no connection; thread-safe.
 */
final class LearntIds {

    /** Not committed past yet. */
    private static final int WAITING = 0;
    /** Committed past: the store may be asked whether it still holds the message. */
    private static final int PAST = 1;
    /** The store is being asked. */
    private static final int ASKED = 2;

    /** Id -> where it stands ({@link #WAITING}, {@link #PAST}, {@link #ASKED}). */
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

    /** The intake's commits as seen now: ids whose records it committed past may be asked about. */
    void committedPast(Predicate<String> past) {
        ids.replaceAll((id, state) -> state == WAITING && past.test(id) ? PAST : state);
    }

    /** Ids committed past and not being asked about: marked asked; the caller asks the store and {@link #answered}. */
    List<String> toAsk() {
        List<String> ask = new ArrayList<>();
        for (Map.Entry<String, Integer> entry : ids.entrySet()) {
            if (entry.getValue() == PAST && ids.replace(entry.getKey(), PAST, ASKED)) {
                ask.add(entry.getKey());
            }
        }
        return ask;
    }

    /**
     * The store answered for {@code asked}; returns the ids to forget now: those still waiting for this answer whose
     * message the store does not hold ({@code stored} false). The ones it holds are asked about again later; one taken
     * or learnt again meanwhile is left as it stands.
     */
    List<String> answered(Collection<String> asked, Predicate<String> stored) {
        List<String> forget = new ArrayList<>();
        for (String id : asked) {
            if (stored.test(id)) {
                ids.replace(id, ASKED, PAST);
            } else if (ids.remove(id, ASKED)) {
                forget.add(id);
            }
        }
        return forget;
    }
}

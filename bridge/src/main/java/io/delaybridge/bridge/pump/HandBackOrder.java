package io.delaybridge.bridge.pump;

import io.delaybridge.bridge.store.ClaimedMessage;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;

/**
 * Keeps a capped target's messages of one shard in due order across hand-backs, for {@link Throttle}: a message
 * handed back to the due set waits there, and a younger message of the same target and shard (from a claim issued
 * before the hand-back) must not overtake it. Not thread-safe: the throttle calls it under its lock.
 */
final class HandBackOrder {

    /** The due set's order: due time, then member bytes (as Redis orders equal scores). */
    static final Comparator<ClaimedMessage> IN_DUE_ORDER = Comparator.comparingLong(ClaimedMessage::dueAt)
            .thenComparing(
                    (a, b) -> Arrays.compareUnsigned(a.ref().member(), b.ref().member()));

    /** A target's messages from one shard. */
    private record Line(OwnedShard shard, String target) {}

    /**
     * A line's messages handed back and not yet seen again, oldest and youngest in the due set's order. Forgotten at
     * {@code expires} (one was cancelled meanwhile, so it never comes back).
     */
    private record Behind(ClaimedMessage oldest, ClaimedMessage youngest, long expires) {
        Behind with(Behind other) {
            return new Behind(
                    IN_DUE_ORDER.compare(oldest, other.oldest) <= 0 ? oldest : other.oldest,
                    IN_DUE_ORDER.compare(youngest, other.youngest) >= 0 ? youngest : other.youngest,
                    Math.max(expires, other.expires));
        }
    }

    private final Map<Line, Behind> behind = new HashMap<>();
    private final long forgetAfterNanos;

    /** Forgets a line's handed-back messages {@code forgetAfterNanos} after the last was handed back. */
    HandBackOrder(long forgetAfterNanos) {
        this.forgetAfterNanos = forgetAfterNanos;
    }

    /** {@code message} of {@code target} (a topic) and {@code shard} went back to the due set at {@code now}. */
    void handedBack(OwnedShard shard, String target, ClaimedMessage message, long now) {
        behind.merge(new Line(shard, target), new Behind(message, message, now + forgetAfterNanos), Behind::with);
    }

    /**
     * Whether {@code message} would overtake messages of its line that wait in Redis; a message that is one of them
     * coming back moves the line on (claims return them oldest first).
     */
    boolean overtakes(OwnedShard shard, String target, ClaimedMessage message, long now) {
        Line line = new Line(shard, target);
        Behind b = behind.get(line);
        if (b == null) {
            return false;
        }
        if (now - b.expires >= 0) {
            behind.remove(line);
            return false;
        }
        int vsYoungest = IN_DUE_ORDER.compare(message, b.youngest);
        if (vsYoungest > 0) {
            return true;
        }
        if (vsYoungest == 0) {
            behind.remove(line); // the last of them is back
        } else if (IN_DUE_ORDER.compare(message, b.oldest) >= 0) {
            behind.put(line, new Behind(message, b.youngest, b.expires));
        }
        return false;
    }
}

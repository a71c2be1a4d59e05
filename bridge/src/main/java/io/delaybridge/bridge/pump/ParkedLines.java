package io.delaybridge.bridge.pump;

import io.delaybridge.bridge.store.ClaimedMessage;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;

/**
 * Keeps a capped target's messages of one shard (a line) in due order while some of them are parked in Redis, for
 * {@link Throttle}. A parked message comes back at the time it was parked until, not at its due time, so a younger
 * message of its line may be claimed first: it must not go before it. A message of a line with parked messages goes
 * only if it is the oldest of them coming back; any other is parked behind them. Not thread-safe: the throttle calls
 * it under its lock. Times are {@code Time#nanoseconds} values.
 */
final class ParkedLines {

    /**
     * A parked message as the line knows it: its due time and member, not its value (a parked backlog waits in Redis,
     * not in the heap). Ordered as the due set orders: due time, then member bytes (as Redis orders equal scores).
     */
    private record Key(long dueAt, byte[] member) implements Comparable<Key> {
        static Key of(ClaimedMessage message) {
            return new Key(message.dueAt(), message.ref().member());
        }

        @Override
        public int compareTo(Key other) {
            int byDue = Long.compare(dueAt, other.dueAt);
            return byDue != 0 ? byDue : Arrays.compareUnsigned(member, other.member);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && compareTo(k) == 0;
        }

        @Override
        public int hashCode() {
            return Long.hashCode(dueAt) * 31 + Arrays.hashCode(member);
        }
    }

    /** A target's messages from one shard. */
    private record Line(OwnedShard shard, String target) {}

    /** A parked message: claimable again from {@code untilMillis} (Redis time), forgotten at {@code expires}. */
    private record Entry(long untilMillis, long expires) {}

    /** What waits in Redis of one line, in due order, and the latest time one of them is forgotten. */
    private static final class Parked {
        final TreeMap<Key, Entry> messages = new TreeMap<>();
        long lastExpiry;
    }

    /** Returned by {@link #heldUntil} for a message that may go. */
    static final long GOES = Long.MIN_VALUE;

    private final Map<Line, Parked> lines = new HashMap<>();

    /**
     * {@code message} of {@code target} and {@code shard} was parked until {@code untilMillis} (Redis time); forgotten
     * at {@code expires} if it never comes back (cancelled or rescheduled meanwhile, or its shard went elsewhere).
     */
    void parked(OwnedShard shard, String target, ClaimedMessage message, long untilMillis, long expires) {
        Parked parked = lines.computeIfAbsent(new Line(shard, target), l -> new Parked());
        parked.messages.put(Key.of(message), new Entry(untilMillis, expires));
        if (parked.messages.size() == 1 || expires - parked.lastExpiry > 0) {
            parked.lastExpiry = expires;
        }
    }

    /**
     * Whether {@code message}, claimed, may go on to its target's cap at {@code now}: {@link #GOES} if its line has
     * nothing parked, or if it is the oldest parked message of its line coming back (it leaves the line). Otherwise it
     * has to be parked behind them: returns until when the oldest of them is parked (Redis time).
     */
    long heldUntil(OwnedShard shard, String target, ClaimedMessage message, long now) {
        Line line = new Line(shard, target);
        Parked parked = lines.get(line);
        if (parked == null) {
            return GOES;
        }
        // only the oldest holds the line: one that never came back is forgotten when its time is up
        while (!parked.messages.isEmpty() && now - parked.messages.firstEntry().getValue().expires >= 0) {
            parked.messages.pollFirstEntry();
        }
        if (!parked.messages.isEmpty()) {
            Map.Entry<Key, Entry> oldest = parked.messages.firstEntry();
            if (!oldest.getKey().equals(Key.of(message))) {
                return oldest.getValue().untilMillis;
            }
            parked.messages.pollFirstEntry();
        }
        if (parked.messages.isEmpty()) {
            lines.remove(line);
        }
        return GOES;
    }

    /** Whether {@code message} is one of its line's parked messages coming back. */
    boolean isParked(OwnedShard shard, String target, ClaimedMessage message) {
        Parked parked = lines.get(new Line(shard, target));
        return parked != null && parked.messages.containsKey(Key.of(message));
    }

    /** Forgets the lines whose every message's time is up (their shard may have gone: nothing would ask again). */
    void forgetExpired(long now) {
        for (Iterator<Parked> it = lines.values().iterator(); it.hasNext(); ) {
            if (now - it.next().lastExpiry >= 0) {
                it.remove();
            }
        }
    }

    /** How many messages the lines hold. */
    int size() {
        int n = 0;
        for (Parked parked : lines.values()) {
            n += parked.messages.size();
        }
        return n;
    }
}

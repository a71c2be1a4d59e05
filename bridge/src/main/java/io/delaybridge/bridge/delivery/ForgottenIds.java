package io.delaybridge.bridge.delivery;

/**
 * The last messages of a shard that {@link DeliveredIds} forgot, as a second line behind its rules: a copy of one that
 * comes back all the same (the same id from the same intake record) is acked, not delivered a second time, and
 * counted where it is reported, since it means a rule let an id go too early. Bounded: the oldest forgotten goes first,
 * so at steady load it covers the last seconds of deliveries (the copies its rules were written for come back within a
 * claim or two). Holds no connection; thread-safe.
 *
 * <p>It keeps only each message's id and origin, in arrays made once: a ring in the order they were forgotten and an
 * open-addressing index of the ids into it. Its entries live for seconds, long enough for the young collections to copy
 * them and promote them; kept as they are delivered (a map entry, the message and its parsed origin besides the two
 * strings), they were most of what exactly once promoted, and of the young pauses that set its p99.
 */
final class ForgottenIds {

    /** How many forgotten messages a shard keeps: at 5,000 deliveries a second over 16 shards, about 13 s of them. */
    static final int KEPT = 4_096;

    /** The ids and origins of the forgotten messages, a ring: slot {@link #next} is the oldest (or empty). */
    private final String[] ids;

    private final String[] origins;
    /** Slot + 1 of each id in the ring, at its hash or the first free place after it; 0: free. */
    private final int[] index;

    private final int mask;
    private int next;
    private long caught;

    ForgottenIds(int kept) {
        if (kept < 1) {
            throw new IllegalArgumentException("kept " + kept + " < 1");
        }
        this.ids = new String[kept];
        this.origins = new String[kept];
        // a power of two at least twice the ring: probes stay short
        int size = Integer.highestOneBit(kept) << 2;
        this.index = new int[size];
        this.mask = size - 1;
    }

    /** {@code message} was forgotten: a committed transaction delivered it. */
    synchronized void forgot(Sends.Message message) {
        String id = message.id();
        int at = find(id);
        if (at >= 0) {
            // forgotten again (a newer record of the same id): its origin replaces the older, in the older's place
            origins[index[at] - 1] = message.origin();
            return;
        }
        if (ids[next] != null) {
            unindex(find(ids[next]));
        }
        ids[next] = id;
        origins[next] = message.origin();
        int place = home(id);
        while (index[place] != 0) {
            place = (place + 1) & mask;
        }
        index[place] = next + 1;
        next = next + 1 == ids.length ? 0 : next + 1;
    }

    /** Whether this very message ({@code id} from the intake record {@code origin}) was delivered and forgotten lately. */
    synchronized boolean holds(String id, String origin) {
        int at = find(id);
        return at >= 0 && origins[index[at] - 1].equals(origin);
    }

    /** A copy of a forgotten message was caught (acked, not sent): returns how many were so far. */
    synchronized long caught() {
        return ++caught;
    }

    /** Where {@code id} is in {@link #index}, or -1. */
    private int find(String id) {
        for (int place = home(id); index[place] != 0; place = (place + 1) & mask) {
            if (ids[index[place] - 1].equals(id)) {
                return place;
            }
        }
        return -1;
    }

    /** Frees {@code place} of the index, moving back the entries after it that their probe would no longer reach. */
    private void unindex(int place) {
        int gap = place;
        index[gap] = 0;
        for (int at = (gap + 1) & mask; index[at] != 0; at = (at + 1) & mask) {
            int home = home(ids[index[at] - 1]);
            // the probe from home to at passes the gap: the entry moves into it
            if (((at - home) & mask) >= ((at - gap) & mask)) {
                index[gap] = index[at];
                index[at] = 0;
                gap = at;
            }
        }
    }

    private int home(String id) {
        int h = id.hashCode();
        return (h ^ (h >>> 16)) & mask;
    }
}

package io.delaybridge.bridge.delivery;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The records of the delivered log that one shard's transactions committed since it was opened, and what the next one
 * lists, so that each delivery is listed once, not in every record until Redis confirmed its ack.
 *
 * <p>The first record after the shard was opened is <em>whole</em>: it lists everything the shard remembers delivered
 * ({@link DeliveredIds}). Each later one lists its own transaction's deliveries and points to the oldest of the shard's
 * earlier records that still lists a message the shard remembers ({@link DeliveredRecord.Contents#readFrom()}): a
 * reader that follows the pointers finds every message a whole record would list. A whole record begins a chain
 * ({@link DeliveredRecord}), the later ones are of it, and a reader follows only the newest pointer of a chain. A record
 * whose messages were all forgotten is no longer pointed to.
 *
 * <p>Compaction keeps the last record of each key, and the log is compacted: the records take their keys from
 * {@value #SLOTS} slots in turn ({@link Plan#slot}), so that a record a pointer reaches is never the older of two
 * records of one key. A record {@value #SLOTS} records back or older that still lists a remembered message has those
 * messages listed again in the next record ("carried") instead of pointed to. Only the shard's owner writes its records
 * between two openings (every opening fences the other writers), so the records a pointer chain crosses are all one
 * writer's, in turn.
 *
 * <p>Not thread-safe: the instance transaction's commits and opens, one at a time, use it.
 */
final class LoggedRecords {

    /** How many keys a shard's records take in turn; a pointer reaches at most this many records back. */
    static final int SLOTS = 64;

    /** The slot of a record of a shard moved away: never one a chain's pointer reaches. */
    static final int MOVED = SLOTS;

    /** A committed record: where it is, its turn, and what it listed that may still be remembered. */
    private static final class Entry {
        final long offset;
        final long turn;
        final List<Sends.Message> messages;
        /** The messages before this index are forgotten. */
        int forgottenUpTo;

        Entry(long offset, long turn, List<Sends.Message> messages) {
            this.offset = offset;
            this.turn = turn;
            this.messages = messages;
        }

        /** Whether nothing it lists is remembered any longer (it skips what is forgotten as it looks). */
        boolean forgotten(DeliveredIds delivered) {
            while (forgottenUpTo < messages.size()) {
                Sends.Message message = messages.get(forgottenUpTo);
                if (delivered.wasDelivered(message.id(), message.origin())) {
                    return false;
                }
                forgottenUpTo++;
            }
            return true;
        }
    }

    /**
     * What a transaction's record of the shard lists and where it points; once the transaction committed, the record
     * is told ({@link #committed}).
     *
     * @param messages what it lists
     * @param readFrom the offset of the oldest earlier record a reader must read too; -1 if none
     * @param slot     the slot its key takes
     * @param whole    whether it lists everything the shard remembers (no earlier record is needed)
     */
    record Plan(
            Collection<Sends.Message> messages,
            long readFrom,
            long chain,
            int slot,
            long turn,
            boolean whole,
            int carried) {}

    private final ArrayDeque<Entry> committed = new ArrayDeque<>();
    /** Counts the records planned, committed or not: a record's turn, and its slot modulo {@link #SLOTS}. */
    private long turns;

    private boolean whole = true;
    /** The chain of the records since the last whole one. */
    private long chain;

    /** The record of a shard this instance keeps nothing of (it moved away): its sends alone. */
    static Plan alone(List<Sends.Message> sends) {
        return new Plan(sends, -1, newChain(), MOVED, -1, true, 0);
    }

    /** The shard is opened (again): its next record is whole, earlier ones are not pointed to. */
    void opened() {
        committed.clear();
        whole = true;
    }

    /**
     * What the record of a transaction that delivers {@code sends} lists: everything {@code delivered} remembers and
     * the sends if it is the first since the shard was opened; otherwise the sends and what it carries.
     */
    Plan plan(DeliveredIds delivered, List<Sends.Message> sends) {
        long turn = turns++;
        int slot = (int) (turn % SLOTS);
        if (whole) {
            Map<String, Sends.Message> listed = delivered.listed();
            sends.forEach(message -> listed.put(message.id(), message));
            return new Plan(listed.values(), -1, newChain(), slot, turn, true, 0);
        }
        while (!committed.isEmpty() && committed.peekFirst().forgotten(delivered)) {
            committed.removeFirst();
        }
        Map<String, Sends.Message> listed = new LinkedHashMap<>();
        int carried = 0;
        Iterator<Entry> oldest = committed.iterator();
        long readFrom = -1;
        while (oldest.hasNext()) {
            Entry entry = oldest.next();
            if (entry.turn > turn - SLOTS) {
                readFrom = entry.offset;
                break;
            }
            for (Sends.Message message : entry.messages.subList(entry.forgottenUpTo, entry.messages.size())) {
                if (delivered.wasDelivered(message.id(), message.origin())) {
                    listed.put(message.id(), message);
                }
            }
            carried++;
        }
        sends.forEach(message -> listed.put(message.id(), message));
        return new Plan(listed.values(), readFrom, chain, slot, turn, false, carried);
    }

    /** The transaction of {@code plan} committed; its record is at {@code offset}. */
    void committed(Plan plan, long offset) {
        if (plan.whole()) {
            committed.clear();
            whole = false;
            chain = plan.chain();
        } else {
            for (int i = 0; i < plan.carried() && !committed.isEmpty(); i++) {
                committed.removeFirst();
            }
        }
        committed.addLast(new Entry(offset, plan.turn(), new ArrayList<>(plan.messages())));
    }

    /** A chain of records no other writer begins: a random number, never 0 (records of earlier versions). */
    private static long newChain() {
        long chain = 0;
        while (chain == 0) {
            chain = java.util.concurrent.ThreadLocalRandom.current().nextLong();
        }
        return chain;
    }

    /** How many committed records are still pointed to (for tests). */
    int pointedTo() {
        return committed.size();
    }
}

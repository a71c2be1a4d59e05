package io.delaybridge.bridge.delivery;

import io.delaybridge.schemas.IntakeOrigin;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;

/**
 * The offsets of a shard's intake partition that the intake reads again: after a store that failed (it drops every
 * batch in flight and seeks back; the write may have stored part of its records before it failed, when Redis forgot
 * its scripts halfway through a pipelined batch), and at an assignment (from where reading starts to the partition's
 * end: an earlier reader may have stored them). The pump may deliver what is stored, its acks delete it, and the
 * records read again are stored again as new messages with the same ids. A delivered id of such a range is forgotten only once
 * it cannot be stored again and any copy stored again has been claimed: the intake committed past the range (it stores
 * a record read again before it commits past it) and two claims of the shard since came back short (every due message
 * taken; the first may have been issued before the intake stored the records again, the second was issued after the
 * first came back; a delivered message was due, so its copy is due too, and a claim acks it before any retry). Kept
 * per range: a rewind covers at most the records in flight, and the ids outside it are forgotten as before. A far
 * entry an earlier reader wrote for such a record would be stored again by the thaw, at any time: the store drops it
 * once the record is stored hot, and the express check parks the record rather than send it while its due hour holds
 * far entries ({@code schedule.lua} step 3.g, {@code express.lua}). Pure logic, thread-safe.
 */
final class ReadAgain {

    /** Short claims after the intake committed past a range that end it. */
    static final int SHORT_CLAIMS = 2;
    /** How many ended ranges are kept to describe a copy that came back ({@link #describe}). */
    private static final int ENDED_KEPT = 16;

    /** One rewind: offsets {@code from..last} read again; short claims seen since the intake committed past it. */
    private static final class Range {
        final long from;
        final IntakeOrigin last;
        /** -1 until the intake committed past {@code last}. */
        volatile int shortClaims = -1;

        Range(long from, IntakeOrigin last) {
            this.from = from;
            this.last = last;
        }

        boolean covers(IntakeOrigin origin) {
            return origin.of(last.topic(), last.partition())
                    && origin.offset() >= from
                    && origin.offset() <= last.offset();
        }
    }

    private final List<Range> ranges = new CopyOnWriteArrayList<>();
    /** The last ranges that ended, newest last: what a copy that came back all the same lay in. */
    private final Deque<Range> ended = new ArrayDeque<>();

    /** The intake rewound: the records of {@code last}'s partition from offset {@code from} to {@code last} are read again. */
    void add(long from, IntakeOrigin last) {
        if (last.offset() >= from) {
            ranges.add(new Range(from, last));
        }
    }

    /** Whether the intake record {@code parsed} (null: an origin that is not a position) lies in a range not over yet. */
    boolean covers(IntakeOrigin parsed) {
        if (parsed == null || ranges.isEmpty()) {
            return false;
        }
        for (Range range : ranges) {
            if (range.covers(parsed)) {
                return true;
            }
        }
        return false;
    }

    boolean isEmpty() {
        return ranges.isEmpty();
    }

    /** The intake's commits as seen now ({@code past}: it committed past that record): such ranges count short claims. */
    void committedPast(Predicate<IntakeOrigin> past) {
        for (Range range : ranges) {
            if (range.shortClaims < 0 && past.test(range.last)) {
                range.shortClaims = 0;
            }
        }
    }

    /** A claim of the shard came back short: ranges that have seen {@link #SHORT_CLAIMS} since are over. */
    void shortClaim() {
        for (Range range : ranges) {
            if (range.shortClaims >= 0 && ++range.shortClaims >= SHORT_CLAIMS) {
                ranges.remove(range);
                synchronized (ended) {
                    ended.addLast(range);
                    if (ended.size() > ENDED_KEPT) {
                        ended.removeFirst();
                    }
                }
            }
        }
    }

    /**
     * Where the intake record {@code parsed} lay among the ranges read again: one not over yet, one of the last that
     * ended, or none; for a warning about a copy that came back after its id was forgotten.
     */
    String describe(IntakeOrigin parsed) {
        if (parsed == null) {
            return "its intake record is not a position";
        }
        for (Range range : ranges) {
            if (range.covers(parsed)) {
                return "it lies in a range read again, offsets " + range.from + "-" + range.last.offset()
                        + ", not over";
            }
        }
        synchronized (ended) {
            for (Range range : ended) {
                if (range.covers(parsed)) {
                    return "it lay in a range read again, offsets " + range.from + "-" + range.last.offset()
                            + ", that ended";
                }
            }
        }
        return "no range read again covered it";
    }
}

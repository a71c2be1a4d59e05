package io.delaybridge.bridge.store;

import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What operators do with stored messages besides the pipeline: look one up, move its due time, count what is pending
 * by due time, and find messages by target for a bulk cancel. Cancelling itself goes through
 * {@link DelayStore#write} with a {@link WriteOp.Cancel}, the same operation a {@code delay-cancel} record uses.
 *
 * <p>Reads are plain commands, not one atomic snapshot: a message may move from pending to in flight between two of
 * them. Every change is one atomic script.
 */
public interface MessageAdmin {

    /** Where a message is. */
    enum State {
        PENDING,
        IN_FLIGHT
    }

    /**
     * A stored message as an operator sees it.
     *
     * @param leaseUntil for an in-flight message, when its lease ends (epoch ms); else -1
     * @param earlierAttempts delivery attempts that already failed or whose lease expired
     * @param envelope the stored envelope bytes (null if the payload is gone)
     */
    record StoredMessage(
            String id, int shard, State state, long dueAt, long leaseUntil, int earlierAttempts, byte[] envelope) {}

    /** What a reschedule did. */
    enum RescheduleResult {
        RESCHEDULED,
        IN_FLIGHT,
        NOT_FOUND
    }

    /** The message with this id, wherever it is, or empty. */
    Optional<StoredMessage> inspect(String id);

    /**
     * Moves a pending message to a new due time (epoch ms); an earlier due time wakes the shard's pump. A message in
     * flight is not moved (its send is under way): {@link RescheduleResult#IN_FLIGHT}.
     */
    RescheduleResult reschedule(String id, long dueAt);

    /** Pending (not in-flight) messages of a shard due in {@code [fromInclusive, toExclusive)}. */
    long countDue(int shard, long fromInclusive, long toExclusive);

    /**
     * Up to {@code max} pending messages of a shard due in {@code [fromInclusive, toInclusive]}, earliest first,
     * skipping the first {@code skip} of them.
     */
    List<StoredMessage> scanDue(int shard, long fromInclusive, long toInclusive, long skip, int max);

    /**
     * The far drop of a default id, if one is remembered: a cancel or a replacement that named the id while its record
     * waited far, or an operator's thaw of it, leaves its record's timestamp (epoch ms); the thaw drops the id's far
     * record if it is not newer. Empty for an explicit id (its far version says where it is).
     */
    OptionalLong farDrop(String id);

    /** The shard's current fencing epoch (how often it changed owner), if any owner ever acquired it. */
    OptionalLong epoch(int shard);

    /** Writes a probe value into the store's meta data: fails if the store cannot be written (full, read-only). */
    void probeWrite();

    /** Null if every shard still holds the store's incarnation marker, else what is wrong. */
    String incarnationProblem();

    /** The earliest lease deadline among the shard's in-flight messages, if any. */
    OptionalLong earliestLease(int shard);
}

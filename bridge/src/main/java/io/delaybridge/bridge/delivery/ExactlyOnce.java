package io.delaybridge.bridge.delivery;

import io.delaybridge.schemas.IntakeOrigin;
import java.util.Collection;
import java.util.Map;

/**
 * What exactly once keeps per shard, inside {@link Delivery} as Kafka keeps its transaction state inside its
 * {@code TransactionManager}: whose producer is open, what committed transactions delivered that Redis has not
 * confirmed, which intake offsets a transaction commits. {@link TransactionalSends} keeps it; at least once keeps
 * nothing ({@link #NONE}). Only {@link Delivery} calls it, from the events its callers report.
 */
interface ExactlyOnce {

    /** At least once: every shard open, nothing remembered. */
    ExactlyOnce NONE = new ExactlyOnce() {};

    /**
     * Makes {@code shard} ready to send, before its first claim: fences the shard's other writers (wherever they run)
     * and learns what committed transactions delivered. Blocking; throws if Kafka or the store cannot be reached.
     */
    default void open(int shard) {}

    /**
     * {@link #open} for each of {@code shards}; the shards that failed, with why. Blocking. Kept apart so that an
     * implementation can open them together.
     */
    default Map<Integer, RuntimeException> open(Collection<Integer> shards) {
        Map<Integer, RuntimeException> failed = new java.util.HashMap<>();
        for (int shard : shards) {
            try {
                open(shard);
            } catch (RuntimeException e) {
                failed.put(shard, e);
            }
        }
        return failed;
    }

    /** Whether {@code shard} can send now; false after a transaction failed until {@link #open} again. */
    default boolean isOpen(int shard) {
        return true;
    }

    /**
     * Whether a committed transaction of {@code shard} delivered exactly this message (same id, same origin) and Redis
     * has not confirmed its ack yet: then it must be acked, not sent again.
     */
    default boolean wasDelivered(int shard, String id, String origin) {
        return false;
    }

    /**
     * Redis answered the acks of {@code ids} of {@code shard}. {@code allDeleted}: it deleted every one. If not, some
     * were no longer in flight (their lease ran out while they were being delivered, and they went back to the due
     * set) and Redis does not say which: none is taken as confirmed; a claim that takes one again acks it, and the
     * others are forgotten once they cannot come back.
     */
    default void acked(int shard, Iterable<String> ids, boolean allDeleted) {}

    /**
     * A claim of {@code shard} took {@code ids} into flight; {@code allDue}: it came back with fewer messages than it
     * asked for, so everything due was claimed. Called at the claim, before the messages are released: a message
     * claimed is remembered until it is released, however late.
     */
    default void claimed(int shard, Iterable<String> ids, boolean allDue) {}

    /**
     * The delivered messages of {@code shard} whose acks Redis may not have carried out (learnt from the delivered log,
     * or acked when no longer in flight), no claim has taken, and whose intake records the intake committed past: the
     * caller asks the store whether each is still stored and answers with {@link #stored}. A short claim cannot tell:
     * such a message may wait out a retry, due later.
     */
    default java.util.List<String> toAsk(int shard) {
        return java.util.List.of();
    }

    /**
     * The store's answer for {@code asked} ({@link #toAsk}): {@code stored} tells which still hold a message under
     * that name (remembered on, acked when claimed); the others cannot come back and are forgotten.
     */
    default void stored(int shard, Collection<String> asked, java.util.function.Predicate<String> stored) {}

    /**
     * A message a claim of {@code shard} took was released: acked, handed to a send, or failed. Until then a message
     * that a transaction delivered stays remembered, whatever an ack of an earlier claim of it said.
     */
    default void released(int shard, String id) {}

    /**
     * A retry moved the message {@code id} of {@code shard} from flight back to the due set, due after its backoff: it
     * will be claimed again, later than a claim of what is due now can tell.
     */
    default void retried(int shard, String id) {}

    /**
     * The intake reads the records of {@code shard}'s intake partition from offset {@code from} to {@code last} again: a
     * store of them failed, though part of it may have gone through, been delivered and acked. Their ids must outlive
     * the copies stored again.
     */
    default void readAgain(int shard, long from, IntakeOrigin last) {}

    /**
     * Each shard's transaction commits with it the intake offsets {@code offsets} offers for the intake records it
     * delivers (the express path's, consume-transform-produce). One source at a time.
     */
    default void carryOffsets(TransactionOffsets offsets) {}

    /**
     * Per shard of {@code shards}, the intake floor its delivered log's last committed record holds, the highest
     * offset of intake partition n known committed when shard n's transaction committed (shards with none are left
     * out). The group's committed offset never goes below it unless Kafka lost commits.
     */
    default Map<Integer, Long> intakeFloors(Collection<Integer> shards) {
        return Map.of();
    }

    /**
     * The shard moved away (or is fenced): let it go. What a transaction holds of it commits or aborts with the rest
     * of that transaction ({@code commit} asks for it to commit; with one transaction for every shard it always may).
     */
    default void close(int shard, boolean commit) {}
}

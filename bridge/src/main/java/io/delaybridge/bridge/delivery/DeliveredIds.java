package io.delaybridge.bridge.delivery;

import io.delaybridge.schemas.IntakeOrigin;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * What a shard's committed transactions delivered and the shard must remember, so that a message claimed again is
 * acked, not sent a second time: each one until Redis confirmed its ack (it is gone from the store) and its intake
 * record will not be read again (the intake would store it again). Every record of the delivered log lists them.
 *
 * <p>A message is claimed again when Redis still holds it after its delivery: its ack failed or did not come yet (a
 * crash, a new owner), or its lease ran out while it was being delivered (a transaction that waited on a broker
 * longer than the lease) and it went back to the due set. Redis answers an ack with the number of messages it deleted;
 * fewer than acked means some were back in the due set and it does not say which, so none of them is taken as
 * confirmed: each is remembered like an id learnt from the log ({@link LearntIds}), acked when a claim takes it, or
 * forgotten once the store no longer holds it and its intake record will not be read again. A claimed message is held until it is released, whatever an ack of an earlier
 * claim of it said. Holds no connection; thread-safe (the release, commit and pump threads share it).
 */
final class DeliveredIds {

    /** Committed (delivered or deadlettered), not forgotten yet: id -> message. */
    private final Map<String, Sends.Message> delivered = new ConcurrentHashMap<>();
    /** Ids whose acks Redis may not have carried out, no claim has taken since (learnt at open, or not confirmed). */
    private final LearntIds learnt = new LearntIds();
    /** Ids of {@link #delivered} whose acks Redis confirmed (or learnt ones that cannot come back): may be forgotten. */
    private final Set<String> settled = ConcurrentHashMap.newKeySet();
    /**
     * Id -> claims of it not released yet. A message whose lease runs out while its release waits (the shard's producer
     * is opened again) is claimed again, as often as its lease runs out: every such claim's release must find it
     * remembered once a transaction delivered it, however the acks went.
     */
    private final Map<String, Integer> held = new ConcurrentHashMap<>();
    /**
     * Ids that a retry sent back to the due set, due later, and no claim has taken since. A short claim does not take
     * a message that is not due yet, so it says nothing of these: each is kept until a claim takes it.
     */
    private final Set<String> retried = ConcurrentHashMap.newKeySet();
    /** Intake records read again after a failed store: their delivered ids wait until no copy can come back. */
    private final ReadAgain readAgain = new ReadAgain();
    /** The last ones forgotten: a copy that comes back all the same is still acked. */
    private final ForgottenIds forgotten = new ForgottenIds(ForgottenIds.KEPT);

    /** The last committed record of the delivered log listed {@code messages} (a new owner opening the shard). */
    void learn(List<Sends.Message> messages) {
        for (Sends.Message message : messages) {
            if (delivered.putIfAbsent(message.id(), message) == null) {
                learnt.learn(message.id());
            }
        }
    }

    /** A transaction that delivered {@code message} committed. */
    void committed(Sends.Message message) {
        delivered.put(message.id(), message);
    }

    /** What the next record of the delivered log lists (before the sends of its own transaction): a copy. */
    Map<String, Sends.Message> listed() {
        return new LinkedHashMap<>(delivered);
    }

    /**
     * Whether a committed transaction delivered exactly this message (same id, same origin): the claimed message is
     * released, to be acked if so, sent if not.
     */
    boolean wasDelivered(String id, String origin) {
        Sends.Message message = delivered.get(id);
        return message != null && message.origin().equals(origin);
    }

    /**
     * Whether this message was forgotten lately ({@link ForgottenIds}) although a committed transaction delivered it:
     * it came back after the rules here let it go, and is acked all the same. Asked after {@link #wasDelivered}.
     */
    boolean forgottenLately(String id, String origin) {
        return forgotten.holds(id, origin);
    }

    /** Which rule let the message from {@code origin} go: where its record lay among the ranges read again. */
    String whyForgotten(String origin) {
        return readAgain.describe(IntakeOrigin.parse(origin));
    }

    /** A copy of a forgotten message came back and is acked ({@link #forgottenLately}): how many did so far. */
    long caughtAfterForgetting() {
        return forgotten.caught();
    }

    /**
     * A retry moved {@code id} from flight back to the due set, due after its backoff: kept until a claim takes it.
     * The retry may be of an earlier claim whose send failed (refused while a later claim's send of it was in a
     * transaction): that transaction may commit, and the message then comes back only once its backoff passed.
     */
    void retried(String id) {
        retried.add(id);
    }

    /** A claim's message was released: acked, sent (its transaction holds it now), or failed. */
    void released(String id) {
        held.computeIfPresent(id, (k, claims) -> claims > 1 ? claims - 1 : null);
    }

    /**
     * Redis answered an ack of {@code ids}. {@code allDeleted}: it deleted every one, they are settled. If not, none is:
     * each is remembered as learnt, acked when a claim takes it again, forgotten once it cannot come back.
     */
    void acked(Iterable<String> ids, boolean allDeleted) {
        for (String id : ids) {
            learnt.taken(id);
            if (!delivered.containsKey(id)) {
                continue;
            }
            if (allDeleted) {
                settled.add(id);
            } else if (!settled.contains(id)) {
                learnt.learn(id);
            }
        }
    }

    /**
     * A claim took {@code ids}: each is held until released ({@link #released}), so that an ack of an earlier claim of
     * it (which deletes it from flight under this one, and Redis counts that as confirmed) cannot make it forgotten
     * before this claim's release asked. With {@code allDue} (the claim came back short: everything due was taken),
     * ranges the intake read again count a short claim ({@link ReadAgain}).
     */
    void claimed(Iterable<String> ids, boolean allDue) {
        for (String id : ids) {
            held.merge(id, 1, Integer::sum);
            learnt.taken(id);
            retried.remove(id);
        }
        if (allDue && !readAgain.isEmpty()) {
            readAgain.shortClaim();
        }
    }

    /** See {@link LearntIds#toAsk}. */
    List<String> toAsk() {
        return learnt.isEmpty() ? List.of() : learnt.toAsk();
    }

    /** The store's answer for {@code asked}: those it does not hold are settled, forgotten like an acked message. */
    void stored(Collection<String> asked, Predicate<String> stored) {
        settled.addAll(learnt.answered(asked, stored));
    }

    /**
     * The intake reads its records from {@code from} to {@code last} again (after a store that failed, or at an
     * assignment): part of them may be stored already, delivered and acked, and are stored again. Their ids are kept until {@link ReadAgain} says no
     * copy can come back.
     */
    void readAgain(long from, IntakeOrigin last) {
        readAgain.add(from, last);
    }

    /**
     * Forgets settled messages that are {@code past} (their intake records, named by origin, will not be read again),
     * not held, and not in a range the intake reads again; learnt ones that are past may be asked about ({@link
     * #toAsk}), and ranges read again that are past start counting short claims.
     */
    void prune(Predicate<IntakeOrigin> past) {
        if (!learnt.isEmpty()) {
            learnt.committedPast(id -> {
                Sends.Message message = delivered.get(id);
                return message == null || past.test(message.place());
            });
        }
        if (!readAgain.isEmpty()) {
            readAgain.committedPast(past);
        }
        for (String id : settled) {
            Sends.Message message = delivered.get(id);
            if (!held.containsKey(id)
                    && !retried.contains(id)
                    && (message == null || (past.test(message.place()) && !readAgain.covers(message.place())))) {
                delivered.remove(id);
                settled.remove(id);
                if (message != null) {
                    forgotten.forgot(message);
                }
            }
        }
    }

    /** How many messages are remembered. */
    int size() {
        return delivered.size();
    }
}

package io.delaybridge.bridge.delivery;

import io.delaybridge.schemas.Envelope;
import io.delaybridge.schemas.IntakeOrigin;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * The one way a message leaves the bridge for its target: used by the pump for claimed messages and by the intake's
 * express path for records it delivers without Redis. It checks the target ({@link TargetCatalog}), builds the record
 * ({@link DeliveryRecords#toTarget}) from the envelope the caller decoded once, sends it, and tells the caller's
 * {@link Result} how it ended; deadletter records go out the same way.
 *
 * <p>The target check: a topic that is missing (and that the broker does not create on first use) fails with
 * {@link MissingTopicException}, one the broker does not let the bridge describe with
 * {@link TopicAuthorizationException} (not retriable: deadlettered at once), a {@code delay-partition} the topic does not have with
 * {@link UnknownTopicOrPartitionException}, both without a send. A send that the broker answers with an unknown topic
 * or partition makes the catalog forget its answer for that topic, so the next check asks the broker again.
 *
 * <p>What carries the records is a {@link Sends}: one shared idempotent producer ({@link PlainSends}), or one
 * pair of transactional producers per instance that commits every shard's deliveries together ({@link TransactionalSends},
 * {@code delivery.exactlyOnce}). What exactly once remembers of each message stays inside ({@link ExactlyOnce}):
 * callers open and close shards, hand over each claimed message ({@link #release}), and report what Redis did with
 * a claim ({@link #claimed}, {@link #acked}, {@link #retried}); none of them asks or keeps what a transaction holds.
 */
public final class Delivery implements AutoCloseable {

    /** How one send ended; called on a producer thread, or on the caller's thread if it failed before a send. */
    public interface Result {
        /** The target (or the deadletter topic) has the record; {@code timestamp}: its timestamp there. */
        void delivered(long timestamp);

        /** Nothing reached the target: the target check or the send failed, or its transaction was aborted. */
        void failed(Exception error);
    }

    /** What the caller does with a claimed message it hands over ({@link #release}). */
    public interface Handover {
        /** Send it (now, or once its target's rate cap lets it): nothing delivered it yet. */
        void send();

        /** A committed transaction delivered it already (exactly once): ack it, do not send it again. */
        void alreadyDelivered();
    }

    private final Sends sends;
    private final ExactlyOnce exactlyOnce;
    private final AutoCloseable closing;
    private final TargetCatalog catalog;
    private final String deadletterTopic;

    private Delivery(
            Sends sends,
            ExactlyOnce exactlyOnce,
            AutoCloseable closing,
            TargetCatalog catalog,
            String deadletterTopic) {
        this.sends = sends;
        this.exactlyOnce = exactlyOnce;
        this.closing = closing;
        this.catalog = catalog;
        this.deadletterTopic = deadletterTopic;
    }

    /** Deliveries through one shared producer (at least once); the producer's owner closes it. */
    public static Delivery plain(Producer<byte[], byte[]> producer, TargetCatalog catalog, String deadletterTopic) {
        return new Delivery(new PlainSends(producer), ExactlyOnce.NONE, () -> {}, catalog, deadletterTopic);
    }

    /** Deliveries in shard transactions (exactly once); {@link #close} closes {@code sends}. */
    public static Delivery exactlyOnce(TransactionalSends sends, TargetCatalog catalog, String deadletterTopic) {
        return new Delivery(sends, sends, sends, catalog, deadletterTopic);
    }

    public TargetCatalog catalog() {
        return catalog;
    }

    public String deadletterTopic() {
        return deadletterTopic;
    }

    /**
     * The Kafka client metrics of each producer that carries deliveries now: the shared producer, or (exactly once)
     * the current session's two transactional producers, which change with each session.
     */
    public List<Map<MetricName, ? extends Metric>> producerMetrics() {
        return sends.producerMetrics();
    }

    /** Whether sends go out in shard transactions ({@code delivery.exactlyOnce}). */
    public boolean exactlyOnce() {
        return exactlyOnce != ExactlyOnce.NONE;
    }

    /**
     * Each shard's transaction commits the intake offsets {@code offsets} offers for the intake records it delivers
     * (exactly once; else nothing). One source at a time; the intake sets it for each consumer it makes.
     */
    public void carryOffsets(TransactionOffsets offsets) {
        exactlyOnce.carryOffsets(offsets);
    }

    /** Per shard, the intake floor of its delivered log (exactly once; else none): {@link ExactlyOnce#intakeFloors}. */
    public java.util.Map<Integer, Long> intakeFloors(java.util.Collection<Integer> shards) {
        return exactlyOnce.intakeFloors(shards);
    }

    /**
     * Makes {@code shard} ready to send, before its first claim and again after a failed transaction: exactly once,
     * fences the shard's other writers and learns what they delivered. Blocking; throws if Kafka cannot be reached.
     */
    public void openShard(int shard) {
        exactlyOnce.open(shard);
    }

    /**
     * {@link #openShard} for each of {@code shards}, together (exactly once: every shard taken fences its other
     * writers without waiting for the others). Blocking. Returns the shards
     * that could not be opened, with why; the others are open.
     */
    public java.util.Map<Integer, RuntimeException> openShards(java.util.Collection<Integer> shards) {
        return exactlyOnce.open(shards);
    }

    /** Whether {@code shard} can send now: false (exactly once) until opened, and after a failed transaction. */
    public boolean shardOpen(int shard) {
        return exactlyOnce.isOpen(shard);
    }

    /** The shard moved away (or is fenced): commit what is open ({@code commit}) or abort it, then let it go. */
    public void closeShard(int shard, boolean commit) {
        exactlyOnce.close(shard, commit);
    }

    /**
     * Hands over the claimed message {@code id} of {@code shard} (the key it is remembered by: a series' occurrence has
     * its own; {@code origin}: its intake record, "" if its envelope does not decode, null if it cannot be told): {@code handover} sends it, or acks it if a committed transaction
     * delivered it already. Either way the claim has let go of it once this returns.
     */
    public void release(int shard, String id, String origin, Handover handover) {
        try {
            if (origin != null && exactlyOnce.wasDelivered(shard, id, origin)) {
                // a committed transaction delivered it (exactly once): the crash or failure came before its ack
                handover.alreadyDelivered();
            } else {
                handover.send();
            }
        } finally {
            // a send made is in its transaction now, so the claim need not keep it remembered
            exactlyOnce.released(shard, id);
        }
    }

    /**
     * Whether the intake record {@code id} ({@code origin}) of {@code shard}, read again, was delivered by a committed
     * transaction already (exactly once): then it is taken as settled, and must not be sent again.
     */
    public boolean settledBefore(int shard, String id, String origin) {
        if (!exactlyOnce.wasDelivered(shard, id, origin)) {
            return false;
        }
        exactlyOnce.acked(shard, java.util.List.of(id), true);
        return true;
    }

    /**
     * A claim of {@code shard} took {@code ids} into flight; {@code allDue}: it came back with fewer messages than it
     * asked for. Reported before the messages are handed over ({@link #release}).
     */
    public void claimed(int shard, Iterable<String> ids, boolean allDue) {
        exactlyOnce.claimed(shard, ids, allDue);
    }

    /**
     * Delivered messages of {@code shard} exactly once remembers until the store says it no longer holds them (see
     * {@link #stored}); empty at least once.
     */
    public java.util.List<String> toAsk(int shard) {
        return exactlyOnce.toAsk(shard);
    }

    /** The store's answer for {@code asked} ({@link #toAsk}): {@code stored} tells which it still holds. */
    public void stored(int shard, java.util.Collection<String> asked, java.util.function.Predicate<String> stored) {
        exactlyOnce.stored(shard, asked, stored);
    }

    /** Redis answered the acks of {@code ids} of {@code shard}; {@code allDeleted}: it deleted every one. */
    public void acked(int shard, Iterable<String> ids, boolean allDeleted) {
        exactlyOnce.acked(shard, ids, allDeleted);
    }

    /** A retry moved the message {@code id} of {@code shard} from flight back to the due set, due after its backoff. */
    public void retried(int shard, String id) {
        exactlyOnce.retried(shard, id);
    }

    /**
     * The intake reads the records of {@code shard}'s intake partition from {@code from} to {@code last} again (a store
     * of them failed, or an assignment): what was delivered of them must be remembered until no copy can come back.
     */
    public void readAgain(int shard, long from, IntakeOrigin last) {
        exactlyOnce.readAgain(shard, from, last);
    }

    /** Exactly once: commits what is open and closes the transactional producers. At least once: nothing to close. */
    @Override
    public void close() throws Exception {
        closing.close();
    }

    /**
     * Delivers the message {@code id} of {@code shard} to its target, attempt {@code attempt}, due at {@code dueAt}.
     * Never throws: every failure goes to {@code result}.
     */
    public void deliver(int shard, Envelope envelope, String id, long dueAt, int attempt, Result result) {
        deliver(shard, envelope, id, id, dueAt, attempt, result);
    }

    /**
     * {@link #deliver(int, Envelope, String, long, int, Result)}, remembered as delivered (exactly once) under
     * {@code key} rather than the id the record carries: an occurrence of a series, stored under the series id.
     */
    public void deliver(int shard, Envelope envelope, String id, String key, long dueAt, int attempt, Result result) {
        try {
            TargetCatalog.TopicState target = catalog.lookup(envelope.target());
            if (target.forbidden()) {
                // refused before the send: in a shard transaction, a send the broker refuses would abort the
                // transaction and every send in it, again at each retry, and the shard would stall
                result.failed(new TopicAuthorizationException(java.util.Set.of(envelope.target())));
                return;
            }
            if (target.missing() && !catalog.missingTopics().createdBySend()) {
                result.failed(new MissingTopicException(envelope.target()));
                return;
            }
            // a missing topic that the broker creates on first use: the send creates it, as any producer's would
            if (envelope.partition() != null
                    && target.known()
                    && !target.missing()
                    && envelope.partition() >= target.partitions()) {
                result.failed(new UnknownTopicOrPartitionException("delay-partition " + envelope.partition()
                        + " does not exist: target topic " + envelope.target() + " has " + target.partitions()
                        + " partitions"));
                return;
            }
            ProducerRecord<byte[], byte[]> record = DeliveryRecords.toTarget(envelope, id, dueAt, attempt);
            sends.send(shard, new Sends.Message(key, envelope.origin(), dueAt), record, forgetting(envelope, result));
        } catch (RuntimeException e) {
            result.failed(e);
        }
    }

    /**
     * Writes {@code record}, the deadletter copy of the message {@code id} of {@code shard} (exactly once: the key it is
     * remembered by, as for {@link #release}). Never throws.
     */
    public void deadletter(
            int shard, String id, String origin, long dueAt, ProducerRecord<byte[], byte[]> record, Result result) {
        try {
            sends.send(shard, new Sends.Message(id, origin, dueAt), record, result);
        } catch (RuntimeException e) {
            result.failed(e);
        }
    }

    /** Waits until every send so far is answered (and, transactional, committed). */
    public void flush() {
        sends.flush();
    }

    /** A send that the broker answered with an unknown topic or partition: ask the broker again next time. */
    private Result forgetting(Envelope envelope, Result result) {
        return new Result() {
            @Override
            public void delivered(long timestamp) {
                result.delivered(timestamp);
            }

            @Override
            public void failed(Exception error) {
                if (error instanceof UnknownTopicOrPartitionException) {
                    catalog.forget(envelope.target());
                }
                result.failed(error);
            }
        };
    }
}

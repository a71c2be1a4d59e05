package io.delaybridge.bridge.delivery;

import io.delaybridge.schemas.Envelope;
import io.delaybridge.schemas.IntakeOrigin;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * The one way a message leaves the bridge for its target: used by the pump for claimed messages and by the intake's
 * express path for records it delivers without Redis. It checks the target ({@link TargetCatalog}), builds the record
 * ({@link DeliveryRecords#toTarget}) from the envelope the caller decoded once, sends it, and tells the caller's
 * {@link Result} how it ended; deadletter records go out the same way.
 *
 * <p>The target check: a topic that is missing (and that the broker does not create on first use) fails with
 * {@link MissingTopicException}, a {@code delay-partition} the topic does not have with
 * {@link UnknownTopicOrPartitionException}, both without a send. A send that the broker answers with an unknown topic
 * or partition makes the catalog forget its answer for that topic, so the next check asks the broker again.
 *
 * <p>What carries the records is a {@link Sends}: one shared idempotent producer ({@link PlainSends}), or one
 * transactional producer per shard that commits a shard's deliveries together ({@link TransactionalSends},
 * {@code delivery.exactlyOnce}).
 */
public final class Delivery {

    /** How one send ended; called on a producer thread, or on the caller's thread if it failed before a send. */
    public interface Result {
        /** The target (or the deadletter topic) has the record; {@code timestamp}: its timestamp there. */
        void delivered(long timestamp);

        /** Nothing reached the target: the target check or the send failed, or its transaction was aborted. */
        void failed(Exception error);
    }

    private final Sends sends;
    private final TargetCatalog catalog;
    private final String deadletterTopic;

    public Delivery(Sends sends, TargetCatalog catalog, String deadletterTopic) {
        this.sends = sends;
        this.catalog = catalog;
        this.deadletterTopic = deadletterTopic;
    }

    /** Deliveries through one shared producer (at least once). */
    public static Delivery plain(Producer<byte[], byte[]> producer, TargetCatalog catalog, String deadletterTopic) {
        return new Delivery(new PlainSends(producer), catalog, deadletterTopic);
    }

    public TargetCatalog catalog() {
        return catalog;
    }

    public String deadletterTopic() {
        return deadletterTopic;
    }

    /** What carries the records: plain or transactional (close it at stop if it is {@link AutoCloseable}). */
    public Sends sends() {
        return sends;
    }

    /** See {@link Sends#transactional}. */
    public boolean exactlyOnce() {
        return sends.transactional();
    }

    /** See {@link Sends#carryOffsets}. */
    public void carryOffsets(TransactionOffsets offsets) {
        sends.carryOffsets(offsets);
    }

    /** Per shard, the intake floor of its delivered log (exactly once; else none): {@link Sends#intakeFloors}. */
    public java.util.Map<Integer, Long> intakeFloors(java.util.Collection<Integer> shards) {
        return sends.intakeFloors(shards);
    }

    /** See {@link Sends#open}: before a shard's first claim, and again after a failed transaction. */
    public void open(int shard) {
        sends.open(shard);
    }

    /** See {@link Sends#isOpen}. */
    public boolean isOpen(int shard) {
        return sends.isOpen(shard);
    }

    /** See {@link Sends#wasDelivered}: a claimed message to ack, not to send. */
    public boolean wasDelivered(int shard, String id, String origin) {
        return sends.wasDelivered(shard, id, origin);
    }

    /** See {@link Sends#acked}. */
    public void acked(int shard, Iterable<String> ids, boolean allDeleted) {
        sends.acked(shard, ids, allDeleted);
    }

    /** See {@link Sends#released}. */
    public void released(int shard, String id) {
        sends.released(shard, id);
    }

    /** See {@link Sends#retried}. */
    public void retried(int shard, String id) {
        sends.retried(shard, id);
    }

    /** See {@link Sends#claimed}. */
    public void claimed(int shard, Iterable<String> ids, boolean allDue) {
        sends.claimed(shard, ids, allDue);
    }

    /** See {@link Sends#readAgain}. */
    public void readAgain(int shard, long from, IntakeOrigin last) {
        sends.readAgain(shard, from, last);
    }

    /** See {@link Sends#close}. */
    public void close(int shard, boolean commit) {
        sends.close(shard, commit);
    }

    /**
     * Delivers the message {@code id} of {@code shard} to its target, attempt {@code attempt}, due at {@code dueAt}.
     * Never throws: every failure goes to {@code result}.
     */
    public void deliver(int shard, Envelope envelope, String id, long dueAt, int attempt, Result result) {
        try {
            TargetCatalog.TopicState target = catalog.lookup(envelope.target());
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
            sends.send(shard, new Sends.Message(id, envelope.origin(), dueAt), record, forgetting(envelope, result));
        } catch (RuntimeException e) {
            result.failed(e);
        }
    }

    /** Writes {@code record}, the deadletter copy of the message {@code id} of {@code shard}. Never throws. */
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

package io.delaybridge.bridge.delivery;

import io.delaybridge.schemas.Envelope;
import java.util.List;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends the intake's express records (due now or within the express window, never written to the store) to their
 * target, on a release thread of its own ({@link DueReleaser}): a record due later than a lower bound of Redis' clock
 * waits until that bound reaches its due time, exactly as the pump's claimed messages do, so it is never early.
 *
 * <p>The record sent is the one the pump would send for the same message on its first attempt
 * ({@link DeliveryRecords#toTarget}: key, value, user headers, {@code delay-id} = the default id,
 * {@code delay-due-at}, {@code delay-origin}, {@code delay-attempt: 1}). The target is checked as the pump checks it
 * ({@link TargetCatalog}): a missing topic that the broker does not create, or a {@code delay-partition} the topic
 * does not have, fails without a send. Every outcome goes to the record's {@link Settlement}: the caller parks a
 * failed record in the store, where the pump's retry and deadletter rules take it over.
 */
public final class ExpressSender {

    private static final Logger LOG = LoggerFactory.getLogger(ExpressSender.class);

    /** What became of an express record; called on the release thread or a producer thread, never both. */
    public interface Settlement {
        /** The target acknowledged the record; {@code timestamp}: the record's timestamp in the target topic. */
        void delivered(long timestamp);

        /** The target check or the send failed: nothing reached the target. */
        void failed(Exception error);
    }

    /** An express record: its envelope, default id and due time, and whom to tell how its send ended. */
    public record Express(Envelope envelope, String id, long dueAt, Settlement settlement) {
        @Override
        public String toString() {
            return "express record " + id;
        }
    }

    private final Producer<byte[], byte[]> producer;
    private final TargetCatalog catalog;
    private final DueReleaser<Express> releaser;

    /** {@code maxHoldMillis}: the express window, how long a record may wait for its due time at most. */
    public ExpressSender(Producer<byte[], byte[]> producer, TargetCatalog catalog, long maxHoldMillis) {
        this.producer = producer;
        this.catalog = catalog;
        this.releaser = new DueReleaser<>(this::release, Express::dueAt, maxHoldMillis, "delay-express");
    }

    public void start() {
        releaser.start();
    }

    /** Sends what is held when it falls due, then ends the release thread. */
    public void stop() throws InterruptedException {
        releaser.stop();
    }

    /** Records a reading of Redis' clock, {@code redisMillis}, known to have been taken before monotonic {@code atNanos}. */
    public void observe(long redisMillis, long atNanos) {
        releaser.observe(redisMillis, atNanos);
    }

    /** Takes records to send at their due time; false (none taken) once stopped. */
    public boolean hold(List<Express> records) {
        return records.isEmpty() || releaser.hold(records);
    }

    private void release(Express express) {
        Envelope envelope = express.envelope();
        try {
            TargetCatalog.TopicState target = catalog.lookup(envelope.target());
            if (target.missing() && !catalog.missingTopics().createdBySend()) {
                express.settlement().failed(new MissingTopicException(envelope.target()));
                return;
            }
            if (envelope.partition() != null && target.known() && !target.missing()
                    && envelope.partition() >= target.partitions()) {
                express.settlement().failed(new UnknownTopicOrPartitionException("delay-partition "
                        + envelope.partition() + " does not exist: target topic " + envelope.target() + " has "
                        + target.partitions() + " partitions"));
                return;
            }
            ProducerRecord<byte[], byte[]> record =
                    DeliveryRecords.toTarget(envelope, express.id(), express.dueAt(), 1);
            producer.send(record, (metadata, error) -> {
                if (error == null) {
                    express.settlement().delivered(metadata.timestamp());
                } else {
                    if (error instanceof UnknownTopicOrPartitionException) {
                        catalog.forget(envelope.target());
                    }
                    express.settlement().failed(error);
                }
            });
        } catch (RuntimeException e) {
            LOG.debug("Could not send {}: {}", express, SendFailures.describe(e));
            express.settlement().failed(e);
        }
    }
}

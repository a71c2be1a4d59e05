package io.delaybridge.bridge.pump;

import io.delaybridge.bridge.delivery.DeliveryRecords;
import io.delaybridge.bridge.delivery.MissingTopicException;
import io.delaybridge.bridge.delivery.SendFailures;
import io.delaybridge.bridge.delivery.TargetCatalog;
import io.delaybridge.bridge.delivery.TargetRates;
import io.delaybridge.bridge.store.ClaimedMessage;
import io.delaybridge.schemas.CorruptEnvelopeException;
import io.delaybridge.schemas.Envelope;
import io.delaybridge.schemas.EnvelopeCodec;
import io.delaybridge.schemas.ErrorCode;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends claimed messages to their target, or to the deadletter topic, and reports each send's {@link Outcome} to the
 * pump thread. Checks the target first ({@link TargetCatalog}): a topic that is missing (and that the broker does not
 * create on first use) or a {@code delay-partition} the topic does not have fails without a send. A capped target's
 * messages pass its {@link Throttle} first ({@link TargetRates}: one lookup per message, nothing more for an uncapped
 * one).
 */
final class MessageSender {

    private static final Logger LOG = LoggerFactory.getLogger(MessageSender.class);

    private final Producer<byte[], byte[]> producer;
    private final TargetCatalog catalog;
    private final String deadletterTopic;
    private final OutcomeQueue outcomes;
    private final TargetRates rates;
    private final Throttle throttle;

    MessageSender(Producer<byte[], byte[]> producer, TargetCatalog catalog, String deadletterTopic,
            OutcomeQueue outcomes, TargetRates rates, Throttle throttle) {
        this.producer = producer;
        this.catalog = catalog;
        this.deadletterTopic = deadletterTopic;
        this.outcomes = outcomes;
        this.rates = rates;
        this.throttle = throttle;
    }

    /** Starts the throttle's thread, if any target can be capped. */
    void start() {
        if (rates.anyCap()) {
            throttle.start(this::sendHeld);
        }
    }

    /**
     * Sends a message that fell due, on the release thread. Whatever goes wrong comes back as a failed outcome (retried,
     * and its in-flight place freed), never as an exception that would end the thread.
     */
    void release(OwnedShard shard, ClaimedMessage message) {
        try {
            send(shard, message);
        } catch (RuntimeException e) {
            LOG.warn("Could not send message {}: {}", message.ref().id(), SendFailures.describe(e));
            outcomes.report(Outcome.failed(shard, message, e, ErrorCode.DELIVERY_FAILED));
        }
    }

    private void send(OwnedShard shard, ClaimedMessage message) {
        Envelope envelope;
        try {
            envelope = EnvelopeCodec.decode(message.envelope());
        } catch (CorruptEnvelopeException e) {
            sendToDeadletter(shard, message, DeliveryRecords.corruptEnvelope(
                    deadletterTopic, message.ref().id(), message.dueAt(), message.attempt(), message.envelope(),
                    "stored message " + message.ref().id() + " cannot be decoded: " + e.getMessage()),
                    ErrorCode.CORRUPT_ENVELOPE);
            return;
        }
        TargetRates.Target target = rates.target(envelope.target());
        if (target.capped() && !throttle.admit(shard, message, envelope, target)) {
            return; // it waits for a token, or went back to the due set
        }
        sendNow(shard, message, envelope, target);
    }

    /** Sends a message that waited for its token, on the throttle's thread; failures come back as outcomes. */
    private void sendHeld(OwnedShard shard, ClaimedMessage message, Envelope envelope, TargetRates.Target target) {
        try {
            sendNow(shard, message, envelope, target);
        } catch (RuntimeException e) {
            LOG.warn("Could not send message {}: {}", message.ref().id(), SendFailures.describe(e));
            outcomes.report(Outcome.failed(shard, message, e, ErrorCode.DELIVERY_FAILED));
        }
    }

    private void sendNow(OwnedShard shard, ClaimedMessage message, Envelope envelope, TargetRates.Target rated) {
        TargetCatalog.TopicState target = catalog.lookup(envelope.target());
        if (target.missing() && !catalog.missingTopics().createdBySend()) {
            outcomes.report(Outcome.failed(shard, message, new MissingTopicException(envelope.target()),
                    ErrorCode.DELIVERY_FAILED));
            return;
        }
        // a missing topic that the broker creates on first use: the send creates it, as any producer's would
        if (envelope.partition() != null && target.known() && !target.missing()
                && envelope.partition() >= target.partitions()) {
            outcomes.report(Outcome.failed(shard, message, new UnknownTopicOrPartitionException(
                    "delay-partition " + envelope.partition() + " does not exist: target topic "
                            + envelope.target() + " has " + target.partitions() + " partitions"),
                    ErrorCode.DELIVERY_FAILED));
            return;
        }
        ProducerRecord<byte[], byte[]> record =
                DeliveryRecords.toTarget(envelope, message.ref().id(), message.dueAt(), message.attempt());
        try {
            producer.send(record, (metadata, error) -> outcomes.report(error == null
                    ? Outcome.delivered(shard, message, rated, metadata.timestamp())
                    : Outcome.failed(shard, message, error, ErrorCode.DELIVERY_FAILED)));
        } catch (RuntimeException e) {
            outcomes.report(Outcome.failed(shard, message, e, ErrorCode.DELIVERY_FAILED));
        }
    }

    /** Sends {@code record}, the deadletter copy of {@code message}; reports DEADLETTERED or DEADLETTER_FAILED. */
    void sendToDeadletter(
            OwnedShard shard, ClaimedMessage message, ProducerRecord<byte[], byte[]> record, ErrorCode code) {
        try {
            producer.send(record, (metadata, error) -> outcomes.report(error == null
                    ? Outcome.deadlettered(shard, message, code)
                    : Outcome.deadletterFailed(shard, message, error)));
        } catch (RuntimeException e) {
            outcomes.report(Outcome.deadletterFailed(shard, message, e));
        }
    }

    /**
     * At stop, once the release thread has ended: hands back what waits for a cap (it goes back to the due set now
     * instead of after its lease), then waits until every send so far is answered.
     */
    void flush() throws InterruptedException {
        throttle.stop();
        producer.flush();
    }
}

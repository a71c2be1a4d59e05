package io.delaybridge.bridge.pump;

import io.delaybridge.bridge.delivery.Delivery;
import io.delaybridge.bridge.delivery.DeliveryRecords;
import io.delaybridge.bridge.delivery.TargetRates;
import io.delaybridge.bridge.errors.Failures;
import io.delaybridge.bridge.store.ClaimedMessage;
import io.delaybridge.schemas.CorruptEnvelopeException;
import io.delaybridge.schemas.Envelope;
import io.delaybridge.schemas.ErrorCode;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands claimed messages to the {@link Delivery} and turns what became of each into an {@link Outcome} for the pump
 * thread. A message that a committed transaction already delivered is not sent again: its outcome says so and it is
 * acked. Decodes each message's envelope once, here; the outcome carries it to the ack, retry or deadletter. A
 * capped target's messages pass its {@link Throttle} first ({@link TargetRates}: one lookup per message, nothing more
 * for an uncapped one).
 */
final class MessageSender {

    private static final Logger LOG = LoggerFactory.getLogger(MessageSender.class);

    private final Delivery delivery;
    private final OutcomeQueue outcomes;
    private final TargetRates rates;
    private final Throttle throttle;

    MessageSender(Delivery delivery, OutcomeQueue outcomes, TargetRates rates, Throttle throttle) {
        this.delivery = delivery;
        this.outcomes = outcomes;
        this.rates = rates;
        this.throttle = throttle;
    }

    /** Starts the throttle's thread, if any target can be capped. */
    void start() {
        if (rates.anyCap()) {
            throttle.start(this::sendNow);
        }
    }

    /**
     * Sends a message that fell due, on the release thread, unless a committed transaction delivered it already (exactly
     * once: then it is acked). Whatever goes wrong comes back as a failed outcome (retried, and its in-flight place
     * freed), never as an exception that would end the thread.
     */
    void release(OwnedShard shard, ClaimedMessage message) {
        String id = message.ref().id();
        Envelope envelope;
        try {
            envelope = message.decode();
        } catch (CorruptEnvelopeException e) {
            delivery.release(
                    shard.shard,
                    id,
                    "",
                    handover(
                            shard,
                            message,
                            null,
                            () -> sendToDeadletter(
                                    shard,
                                    message,
                                    null,
                                    DeliveryRecords.corruptEnvelope(
                                            delivery.deadletterTopic(),
                                            id,
                                            message.dueAt(),
                                            message.attempt(),
                                            message.envelope(),
                                            "stored message " + id + " cannot be decoded: " + e.getMessage()),
                                    ErrorCode.CORRUPT_ENVELOPE)));
            return;
        } catch (RuntimeException e) {
            delivery.release(shard.shard, id, null, handover(shard, message, null, () -> {
                LOG.warn("Could not send message {}: {}", id, Failures.describe(e));
                outcomes.report(Outcome.failed(shard, message, null, e, ErrorCode.DELIVERY_FAILED));
            }));
            return;
        }
        delivery.release(shard.shard, id, envelope.origin(), handover(shard, message, envelope, () -> {
            TargetRates.Target target = rates.target(envelope.target());
            if (target.capped() && !throttle.admit(shard, message, envelope, target)) {
                return; // it waits for a token, or went back to the due set
            }
            sendNow(shard, message, envelope, target);
        }));
    }

    /** Sends with {@code send}, or reports the message delivered before (exactly once) to be acked. */
    private Delivery.Handover handover(OwnedShard shard, ClaimedMessage message, Envelope envelope, Runnable send) {
        return new Delivery.Handover() {
            @Override
            public void send() {
                send.run();
            }

            @Override
            public void alreadyDelivered() {
                outcomes.report(Outcome.alreadyDelivered(shard, message, envelope));
            }
        };
    }

    /** Sends now, on the release thread or (after its token came) the throttle's; the outcome is reported. */
    private void sendNow(OwnedShard shard, ClaimedMessage message, Envelope envelope, TargetRates.Target rated) {
        delivery.deliver(
                shard.shard, envelope, message.ref().id(), message.dueAt(), message.attempt(), new Delivery.Result() {
                    @Override
                    public void delivered(long timestamp) {
                        outcomes.report(Outcome.delivered(shard, message, envelope, rated, timestamp));
                    }

                    @Override
                    public void failed(Exception error) {
                        outcomes.report(Outcome.failed(shard, message, envelope, error, ErrorCode.DELIVERY_FAILED));
                    }
                });
    }

    /**
     * Sends {@code record}, the deadletter copy of {@code message} ({@code envelope}: as decoded, null if it does not
     * decode); reports DEADLETTERED or DEADLETTER_FAILED.
     */
    void sendToDeadletter(
            OwnedShard shard,
            ClaimedMessage message,
            Envelope envelope,
            ProducerRecord<byte[], byte[]> record,
            ErrorCode code) {
        delivery.deadletter(
                shard.shard,
                message.ref().id(),
                envelope == null ? "" : envelope.origin(),
                message.dueAt(),
                record,
                new Delivery.Result() {
                    @Override
                    public void delivered(long timestamp) {
                        outcomes.report(Outcome.deadlettered(shard, message, code));
                    }

                    @Override
                    public void failed(Exception error) {
                        outcomes.report(Outcome.deadletterFailed(shard, message, envelope, error));
                    }
                });
    }

    /**
     * At stop, once the release thread has ended: hands back what waits for a cap (it goes back to the due set now
     * instead of after its lease), then waits until every send so far is answered.
     */
    void flush() throws InterruptedException {
        throttle.stop();
        delivery.flush();
    }

    /** A retry moved the message {@code id} of {@code shard} back to the due set, due after its backoff. */
    void retried(OwnedShard shard, String id) {
        delivery.retried(shard.shard, id);
    }

    /** Redis answered the acks of {@code ids} of {@code shard}; {@code allDeleted}: it deleted every one. */
    void acked(OwnedShard shard, Iterable<String> ids, boolean allDeleted) {
        delivery.acked(shard.shard, ids, allDeleted);
    }
}

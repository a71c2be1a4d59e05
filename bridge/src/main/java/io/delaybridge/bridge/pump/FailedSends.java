package io.delaybridge.bridge.pump;

import io.delaybridge.bridge.delivery.Delivery;
import io.delaybridge.bridge.delivery.DeliveryRecords;
import io.delaybridge.bridge.delivery.HeldBackException;
import io.delaybridge.bridge.delivery.MissingTopicException;
import io.delaybridge.bridge.delivery.SendFailures;
import io.delaybridge.bridge.errors.Failures;
import io.delaybridge.bridge.store.ClaimedMessage;
import io.delaybridge.bridge.store.DelayStore;
import io.delaybridge.bridge.store.StoreException;
import io.delaybridge.bridge.store.StoreFencedException;
import io.delaybridge.schemas.Envelope;
import io.delaybridge.schemas.ErrorCode;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the pump does with a send that failed, on the pump thread: schedules it again after the {@link RetryPolicy}'s
 * backoff, or, once its retries are spent or its failure is permanent (or its target topic is still missing), sends
 * it to the deadletter topic with the reason. A message whose deadletter write failed is retried as well. The
 * in-flight place of a retried message is freed here; a deadlettered one comes back as an outcome of its own.
 */
final class FailedSends {

    private static final Logger LOG = LoggerFactory.getLogger(FailedSends.class);

    private final DelayStore store;
    private final Delivery delivery;
    private final RetryPolicy retryPolicy;
    private final PumpMetrics metrics;
    private final MessageSender sender;
    private final InFlightPlaces places;
    /** Redis' time now, as estimated. */
    private final LongSupplier redisNow;

    FailedSends(DelayStore store, PumpSends sends, PumpMetrics metrics, SendPath path, LongSupplier redisNow) {
        this.store = store;
        this.delivery = sends.delivery();
        this.retryPolicy = sends.retryPolicy();
        this.metrics = metrics;
        this.sender = path.sender();
        this.places = path.places();
        this.redisNow = redisNow;
    }

    /** A failed delivery: retried with backoff, or deadlettered if it is permanent or its retries are spent. */
    void failed(Outcome failure) {
        ClaimedMessage message = failure.message();
        Exception error = failure.error();
        if (error instanceof MissingTopicException missing) {
            waitForMissingTopic(failure, missing);
            return;
        }
        long retryAfter = retryAfter(retryPolicy, error, message.attempt());
        if (retryAfter < 0) {
            boolean permanent = SendFailures.isPermanent(error);
            Envelope envelope = failure.envelope();
            String reason = "delivery to " + (envelope == null ? "its target" : envelope.target()) + " failed after "
                    + message.attempt() + (message.attempt() == 1 ? " attempt" : " attempts")
                    + (permanent ? " (not retriable)" : "") + ": " + Failures.describe(error);
            deadletter(failure, reason);
        } else {
            metrics.retried.mark();
            retryLater(failure.shard(), message, retryAfter);
        }
    }

    /**
     * The wait before a failed message's next attempt, or -1 if it goes to the deadletter topic. A send that exactly
     * once held back ({@link HeldBackException}) waits the first backoff whatever its attempt, and is never
     * deadlettered for it: its target never refused it, and a few sessions of the producers opened again in a row
     * must not make it wait minutes or spend its attempts. A permanent failure, or one whose attempts are spent, is
     * deadlettered; any other waits the policy's backoff for its attempt.
     */
    static long retryAfter(RetryPolicy policy, Exception error, int attempt) {
        if (error instanceof HeldBackException) {
            return policy.backoffMillis(1);
        }
        if (SendFailures.isPermanent(error) || policy.exhausted(attempt)) {
            return -1;
        }
        return policy.backoffMillis(attempt);
    }

    /** A message the deadletter topic did not take: retried after the first backoff. */
    void deadletterFailed(Outcome outcome) {
        LOG.warn(
                "Could not write message {} to the deadletter topic {}: {}",
                outcome.message().ref().id(),
                delivery.deadletterTopic(),
                Failures.describe(outcome.error()));
        retryLater(outcome.shard(), outcome.message(), retryPolicy.backoffMillis(1));
    }

    /**
     * A message for a topic that does not exist (and that the broker does not create on first use) waits for it once,
     * {@code pump.missingTopicWait} after its first attempt; then it goes to the deadletter topic, instead of through
     * the whole retry schedule. A later attempt (after that wait, or after a retry or a crash) does not wait again: a
     * retried message's due time is the time of its retry, so it cannot tell how long it has waited.
     */
    private void waitForMissingTopic(Outcome failure, MissingTopicException missing) {
        ClaimedMessage message = failure.message();
        long wait = delivery.catalog().missingTopics().waitMillis();
        if (message.attempt() == 1 && wait > 0) {
            metrics.retried.mark();
            retryLater(failure.shard(), message, wait);
            return;
        }
        String reason = "target topic " + missing.topic() + " does not exist (attempt " + message.attempt() + "; it "
                + "waited " + wait + " ms for it after its first attempt, and the broker does not create topics on "
                + "first use). Create the topic, then replay this record from the deadletter topic";
        deadletter(failure, reason);
    }

    /** Sends a failed message to the deadletter topic with {@code reason}; it is deleted once that is written. */
    private void deadletter(Outcome failure, String reason) {
        ClaimedMessage message = failure.message();
        Envelope envelope = failure.envelope();
        LOG.info("Deadlettering message {}: {}", message.ref().id(), reason);
        sender.sendToDeadletter(
                failure.shard(),
                message,
                envelope,
                deadletterRecord(message, envelope, failure.code(), reason),
                failure.code());
    }

    /** The deadletter copy of a message whose delivery failed; the stored bytes as they are if they did not decode. */
    private ProducerRecord<byte[], byte[]> deadletterRecord(
            ClaimedMessage message, Envelope envelope, ErrorCode code, String reason) {
        String deadletterTopic = delivery.deadletterTopic();
        if (envelope == null) {
            return DeliveryRecords.corruptEnvelope(
                    deadletterTopic,
                    message.ref().id(),
                    message.dueAt(),
                    message.attempt(),
                    message.envelope(),
                    reason);
        }
        return DeliveryRecords.failedDelivery(
                deadletterTopic, envelope, message.ref().id(), message.dueAt(), message.attempt(), code, reason);
    }

    private void retryLater(OwnedShard shard, ClaimedMessage message, long backoffMillis) {
        try {
            if (store.retry(shard.shard, shard.epoch, message.ref(), redisNow.getAsLong() + backoffMillis)) {
                // exactly once: a later claim's send of it may be in a transaction that commits; it is due only later
                sender.retried(shard, sender.key(message));
            }
        } catch (StoreFencedException e) {
            LOG.warn(
                    "{}; message {} is returned by its lease",
                    e.getMessage(),
                    message.ref().id());
        } catch (StoreException e) {
            LOG.warn(
                    "Could not schedule a retry of message {}, its lease returns it: {}",
                    message.ref().id(),
                    e.getMessage());
        }
        places.finish(shard, 1);
    }
}

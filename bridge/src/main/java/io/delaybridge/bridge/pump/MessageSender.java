package io.delaybridge.bridge.pump;

import io.delaybridge.bridge.delivery.Delivery;
import io.delaybridge.bridge.delivery.DeliveryRecords;
import io.delaybridge.bridge.delivery.TargetRates;
import io.delaybridge.bridge.errors.Failures;
import io.delaybridge.bridge.release.DueReleaser;
import io.delaybridge.bridge.store.ClaimedMessage;
import io.delaybridge.bridge.time.RedisClock;
import io.delaybridge.schemas.CorruptEnvelopeException;
import io.delaybridge.schemas.Envelope;
import io.delaybridge.schemas.ErrorCode;
import io.delaybridge.schemas.SeriesRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands claimed messages to the {@link Delivery} and turns what became of each into an {@link Outcome} for the pump
 * thread. A message that a committed transaction already delivered is not sent again: its outcome says so and it is
 * acked. Decodes each message's envelope once, here; the outcome carries it to the ack, retry or deadletter. A
 * capped target's messages pass its {@link Throttle} first ({@link TargetRates}: one lookup per message, nothing more
 * for an uncapped one).
 *
 * <p>Outcomes are queued by whichever thread learns them (the producer's callback thread, mostly) until the pump
 * thread {@link #drainOutcomes drains} them; the pump is signalled once per burst of outcomes, not once per outcome.
 */
final class MessageSender {

    private static final Logger LOG = LoggerFactory.getLogger(MessageSender.class);

    private final Delivery delivery;
    private final ConcurrentLinkedQueue<Outcome> outcomes = new ConcurrentLinkedQueue<>();
    /** Set when an outcome is queued and the pump has not been signalled for it. */
    private final AtomicBoolean signalled = new AtomicBoolean();

    private final Wakeups wakeups;
    /** Holds claimed messages until their due time, then sends them on the {@code delay-release} thread. */
    private final DueReleaser<Claimed> releaser;

    private final TargetRates rates;
    private final Throttle throttle;
    private final SeriesTurns series;

    /** {@code lookAheadMillis}: how long a claimed message may wait for its due time at most. */
    MessageSender(
            Delivery delivery,
            Wakeups wakeups,
            TargetRates rates,
            Throttle throttle,
            SeriesTurns series,
            long lookAheadMillis,
            RedisClock redisClock) {
        this.delivery = delivery;
        this.wakeups = wakeups;
        this.releaser = new DueReleaser<>(
                c -> release(c.shard(), c.message()),
                c -> c.message().dueAt(),
                lookAheadMillis,
                redisClock,
                redisClock.time(),
                "delay-release");
        this.rates = rates;
        this.throttle = throttle;
        this.series = series;
    }

    /** Queues an outcome for the pump thread; any thread. */
    void report(Outcome outcome) {
        outcomes.add(outcome);
        if (!signalled.getAndSet(true)) {
            wakeups.signal();
        }
    }

    /** Takes every outcome queued so far, oldest first; the next report signals again. Pump thread. */
    List<Outcome> drainOutcomes() {
        signalled.set(false);
        List<Outcome> drained = new ArrayList<>();
        Outcome outcome;
        while ((outcome = outcomes.poll()) != null) {
            drained.add(outcome);
        }
        return drained;
    }

    /** A claimed message and the shard it was claimed from, as the release thread holds it until its due time. */
    private record Claimed(OwnedShard shard, ClaimedMessage message) {
        @Override
        public String toString() {
            return "message " + message.ref().id() + " of shard " + shard.shard;
        }
    }

    /** Starts the release thread, and the throttle's if any target can be capped. */
    void start() {
        releaser.start();
        if (rates.anyCap()) {
            throttle.start(this::sendNow);
        }
    }

    /** Holds messages claimed from {@code shard} until their due time, then sends each ({@link #release}). */
    void hold(OwnedShard shard, List<ClaimedMessage> messages) {
        releaser.hold(messages.stream().map(m -> new Claimed(shard, m)).toList());
    }

    /**
     * Sends a message that fell due, on the release thread, unless a committed transaction delivered it already (exactly
     * once: then it is acked). Whatever goes wrong comes back as a failed outcome (retried, and its in-flight place
     * freed), never as an exception that would end the thread.
     */
    void release(OwnedShard shard, ClaimedMessage message) {
        String id = message.ref().id();
        Envelope envelope;
        SeriesRecord.Turn turn;
        try {
            envelope = message.decode();
            turn = series.turn(envelope, message.dueAt());
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
                report(Outcome.failed(shard, message, null, e, ErrorCode.DELIVERY_FAILED));
            }));
            return;
        }
        String key = series.deliveryKey(id, envelope);
        if (turn != null && turn.delivered() == null) {
            // missed and skipped (delay-missed: skip): nothing goes out; the settle stores the next occurrence
            Envelope skipped = turn.envelope();
            delivery.release(
                    shard.shard,
                    key,
                    skipped.origin(),
                    handover(shard, message, skipped, () -> report(Outcome.alreadyDelivered(shard, message, skipped))));
            return;
        }
        Envelope toSend = turn == null ? envelope : turn.envelope();
        delivery.release(shard.shard, key, toSend.origin(), handover(shard, message, toSend, () -> {
            TargetRates.Target target = rates.target(toSend.target());
            if (target.capped() && !throttle.admit(shard, message, toSend, target)) {
                return; // it waits for a token, or went back to the due set
            }
            sendNow(shard, message, toSend, target);
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
                report(Outcome.alreadyDelivered(shard, message, envelope));
            }
        };
    }

    /** Sends now, on the release thread or (after its token came) the throttle's; the outcome is reported. */
    private void sendNow(OwnedShard shard, ClaimedMessage message, Envelope envelope, TargetRates.Target rated) {
        // a series' occurrence carries its own due time: the message's may be a retry's, or an older missed one's
        long dueAt = SeriesRecord.dueAt(envelope, message.dueAt());
        Delivery.Result result = new Delivery.Result() {
            @Override
            public void delivered(long timestamp) {
                report(Outcome.delivered(shard, message, envelope, rated, timestamp));
            }

            @Override
            public void failed(Exception error) {
                report(Outcome.failed(shard, message, envelope, error, ErrorCode.DELIVERY_FAILED));
            }
        };
        delivery.deliver(shard.shard, envelope, message.ref().id(), key(message), dueAt, message.attempt(), result);
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
                key(message),
                envelope == null ? "" : envelope.origin(),
                message.dueAt(),
                record,
                new Delivery.Result() {
                    @Override
                    public void delivered(long timestamp) {
                        report(Outcome.deadlettered(shard, message, envelope, code));
                    }

                    @Override
                    public void failed(Exception error) {
                        report(Outcome.deadletterFailed(shard, message, envelope, error));
                    }
                });
    }

    /**
     * At stop, once the pump thread has ended: sends what is held as it falls due and ends the release thread, hands
     * back what waits for a cap (it goes back to the due set now instead of after its lease), then waits until every
     * send so far is answered.
     */
    void flush() throws InterruptedException {
        releaser.stop();
        throttle.stop();
        delivery.flush();
    }

    /** The name exactly once remembers {@code message} by: {@link SeriesTurns#deliveryKey(ClaimedMessage)}. */
    String key(ClaimedMessage message) {
        return series.deliveryKey(message);
    }

    /** A retry moved the message {@code id} (its {@link #key}) of {@code shard} back to the due set, due later. */
    void retried(OwnedShard shard, String id) {
        delivery.retried(shard.shard, id);
    }

    /** Redis answered the acks of {@code ids} (their {@link #key}s) of {@code shard}; {@code allDeleted}: all deleted. */
    void acked(OwnedShard shard, Iterable<String> ids, boolean allDeleted) {
        delivery.acked(shard.shard, ids, allDeleted);
    }
}

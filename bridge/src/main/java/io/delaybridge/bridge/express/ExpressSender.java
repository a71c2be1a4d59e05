package io.delaybridge.bridge.express;

import io.delaybridge.bridge.delivery.Delivery;
import io.delaybridge.bridge.release.DueReleaser;
import io.delaybridge.bridge.time.RedisClock;
import io.delaybridge.bridge.time.Time;
import io.delaybridge.schemas.Envelope;
import java.util.List;

/**
 * Sends the intake's express records (due now or within the express window, never written to the store) to their
 * target, on a release thread of its own ({@link DueReleaser}): a record due later than a lower bound of Redis' clock
 * waits until that bound reaches its due time, exactly as the pump's claimed messages do, so it is never early.
 *
 * <p>The record sent is the one the pump would send for the same message on its first attempt
 * ({@code DeliveryRecords.toTarget}: key, value, user headers, {@code delay-id} = the default id,
 * {@code delay-due-at}, {@code delay-origin}, {@code delay-attempt: 1}), sent by the same {@link Delivery}, with the
 * same target checks. Every outcome goes to the record's {@link Settlement}: the caller parks a failed record in the
 * store, where the pump's retry and deadletter rules take it over.
 */
final class ExpressSender {

    /** What became of an express record; called on the release thread or a producer thread, never both. */
    public interface Settlement extends Delivery.Result {}

    /**
     * An express record: its envelope, default id, due time and shard (its intake partition's), and whom to tell how
     * its send ended.
     */
    public record Express(Envelope envelope, String id, long dueAt, int shard, Settlement settlement) {
        @Override
        public String toString() {
            return "express record " + id;
        }
    }

    private final Delivery delivery;
    private final DueReleaser<Express> releaser;

    /** {@code maxHoldMillis}: the express window, how long a record may wait for its due time at most. */
    public ExpressSender(Delivery delivery, long maxHoldMillis, RedisClock redisClock, Time time) {
        this.delivery = delivery;
        this.releaser =
                new DueReleaser<>(this::release, Express::dueAt, maxHoldMillis, redisClock, time, "delay-express");
    }

    public void start() {
        releaser.start();
    }

    /** Sends what is held when it falls due, then ends the release thread. */
    public void stop() throws InterruptedException {
        releaser.stop();
    }

    /** Takes records to send at their due time; false (none taken) once stopped. */
    public boolean hold(List<Express> records) {
        return records.isEmpty() || releaser.hold(records);
    }

    private void release(Express express) {
        Settlement settlement = express.settlement();
        delivery.deliver(express.shard(), express.envelope(), express.id(), express.dueAt(), 1, new Delivery.Result() {
            @Override
            public void delivered(long timestamp) {
                // exactly once: its transaction's delivered-log entry is forgotten once the intake committed past it
                delivery.acked(express.shard(), List.of(express.id()), true);
                settlement.delivered(timestamp);
            }

            @Override
            public void failed(Exception error) {
                settlement.failed(error);
            }
        });
    }
}

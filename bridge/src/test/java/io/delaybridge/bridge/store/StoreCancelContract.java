package io.delaybridge.bridge.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.schemas.IntakeOrigin;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The store contract's cancels: a cancel finds its message wherever it is stored, stops one in flight, and is
 * remembered so that an older schedule of the same id read after it is dropped; run by {@link DelayStoreContractIT}
 * against each implementation.
 *
 * <p>Time: due times are taken relative to {@link DelayStore#now()}, the store's clock; waits have deadlines.
 */
public interface StoreCancelContract extends StoreContract {

    @Test
    default void cancelRemovesAPendingMessage() {
        long now = store().now();
        writeOne(intakeRecord(3, 4, now - 1, "doomed"));
        assertEquals(WriteResult.CANCELLED, writeOne(new WriteOp.Cancel(TOPIC + "-3-4")));
        assertEquals(new ShardStats(3, 0, 0, -1), store().stats(3));
        assertTrue(store().claim(3, store().acquire(3), 10, LEASE).messages().isEmpty());
        assertEquals(WriteResult.NOT_FOUND, writeOne(new WriteOp.Cancel(TOPIC + "-3-4")), "a second cancel");
    }

    @Test
    default void cancelOfAnUnknownIdIsNotFound() {
        assertEquals(WriteResult.NOT_FOUND, writeOne(new WriteOp.Cancel("never-scheduled")));
        assertEquals(WriteResult.NOT_FOUND, writeOne(new WriteOp.Cancel(TOPIC + "-1-1")));
    }

    @Test
    default void cancelOfAMessageInFlightStopsItsRetriesAndRedelivery() {
        long now = store().now();
        writeOne(schedule("in-flight", now - 1, TOPIC + "/0/1", "x"));
        int shard = router().shardOf("in-flight");
        long epoch = store().acquire(shard);
        ClaimedMessage message = store().claim(shard, epoch, 10, 200).messages().get(0);

        assertEquals(WriteResult.CANCELLED, writeOne(new WriteOp.Cancel("in-flight")));
        assertEquals(new ShardStats(shard, 0, 0, -1), store().stats(shard));
        assertFalse(store().retry(shard, epoch, message.ref(), now));
        assertEquals(0, store().ack(shard, epoch, List.of(message.ref())));
        assertEquals(0, store().reclaim(shard, epoch, 10));
    }

    @Test
    default void cancelAndReplacementFindTheMessageFromAnyPartition() {
        long now = store().now();
        // the same explicit id arrives on three different intake partitions
        assertEquals(WriteResult.STORED, writeOne(schedule("order-42", now + 60_000, TOPIC + "/0/1", "a")));
        assertEquals(WriteResult.REPLACED, writeOne(schedule("order-42", now + 60_000, TOPIC + "/1/1", "b")));
        assertEquals(WriteResult.CANCELLED, writeOne(new WriteOp.Cancel("order-42")));
        for (int shard = 0; shard < SHARDS; shard++) {
            assertEquals(0, store().stats(shard).pending(), "shard " + shard);
        }
    }

    @Test
    default void aCancelReadBeforeAnOlderScheduleOfTheSameIdWins() {
        long now = store().now();
        // the cancel (record time 2000) came in on a partition that was read first; the schedule it cancels
        // (record time 1000) on a lagging one
        assertEquals(WriteResult.NOT_FOUND, writeOne(new WriteOp.Cancel("order-7", 2_000, 0)));
        assertEquals(
                WriteResult.ALREADY_CANCELLED,
                writeOne(new WriteOp.Schedule(
                        "order-7", now - 1, new IntakeOrigin(TOPIC, 2, 9), envelope("late"), 1_000)));
        assertEquals(
                WriteResult.ALREADY_CANCELLED,
                writeOne(new WriteOp.Schedule(
                        "order-7", now - 1, new IntakeOrigin(TOPIC, 2, 10), envelope("same instant"), 2_000)),
                "a tie goes to the cancel");
        int shard = router().shardOf("order-7");
        assertEquals(0, store().stats(shard).pending());
        assertTrue(store().claim(shard, store().acquire(shard), 10, LEASE)
                .messages()
                .isEmpty());
    }

    @Test
    default void aScheduleNewerThanTheRememberedCancelSchedulesTheIdAgain() {
        long now = store().now();
        writeOne(new WriteOp.Cancel("order-8", 2_000, 0));
        assertEquals(
                WriteResult.STORED,
                writeOne(new WriteOp.Schedule(
                        "order-8", now - 1, new IntakeOrigin(TOPIC, 0, 1), envelope("again"), 3_000)));
        // an older record read now is older than the stored version
        WriteOp.Schedule older =
                new WriteOp.Schedule("order-8", now - 1, new IntakeOrigin(TOPIC, 1, 2), envelope("older"), 1_500);
        assertEquals(WriteResult.SUPERSEDED, writeOne(older));
        // once that version is delivered, the remembered cancel is gone with it: the older record is stored again
        int shard = router().shardOf("order-8");
        long epoch = store().acquire(shard);
        assertEquals(
                1,
                store().ack(
                                shard,
                                epoch,
                                List.of(store().claim(shard, epoch, 10, LEASE)
                                        .messages()
                                        .get(0)
                                        .ref())));
        assertEquals(WriteResult.STORED, writeOne(older));
    }

    @Test
    default void aScheduleReadAgainAfterItWasCancelledDoesNotComeBack() {
        long now = store().now();
        WriteOp.Schedule record =
                new WriteOp.Schedule(TOPIC + "-1-5", now - 1, new IntakeOrigin(TOPIC, 1, 5), envelope("x"), 1_000);
        writeOne(record);
        assertEquals(WriteResult.CANCELLED, writeOne(new WriteOp.Cancel(TOPIC + "-1-5", 1_200, 0)));
        // the intake crashed before committing the schedule's offset and reads it again
        assertEquals(WriteResult.ALREADY_CANCELLED, writeOne(record));
        assertEquals(0, store().stats(1).pending());
    }

    @Test
    default void rememberedCancelsAreForgottenAfterTheirTime() {
        long now = store().now();
        writeOne(new WriteOp.Cancel(TOPIC + "-0-100", 1_000, 0));
        // a later cancel in the same shard forgets what was remembered before its forget time
        writeOne(new WriteOp.Cancel(TOPIC + "-0-101", 5_000, 4_000));
        assertEquals(
                WriteResult.STORED,
                writeOne(new WriteOp.Schedule(
                        TOPIC + "-0-100", now - 1, new IntakeOrigin(TOPIC, 0, 100), envelope("y"), 500)),
                "forgotten: not suppressed");
        assertEquals(
                WriteResult.ALREADY_CANCELLED,
                writeOne(new WriteOp.Schedule(
                        TOPIC + "-0-101", now - 1, new IntakeOrigin(TOPIC, 0, 101), envelope("y"), 4_500)),
                "still remembered");
    }

    @Test
    default void withoutTimestampsNothingIsRememberedOrSuppressed() {
        long now = store().now();
        writeOne(new WriteOp.Cancel("plain"));
        assertEquals(WriteResult.STORED, writeOne(schedule("plain", now - 1, TOPIC + "/0/4", "z")));
    }
}

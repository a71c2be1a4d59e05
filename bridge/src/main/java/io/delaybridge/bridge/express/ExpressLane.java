package io.delaybridge.bridge.express;

import io.delaybridge.bridge.store.WriteOp;
import io.delaybridge.bridge.store.WriteResult;
import io.delaybridge.bridge.store.WrittenBatch;
import io.delaybridge.schemas.Envelope;
import java.util.List;

/**
 * Where the intake hands its express records (due now or within {@code intake.expressWindow}, never written to Redis
 * unless they park): once a poll is stored, its express records and the answers of their checks ({@code express.lua})
 * come here; those that passed are sent, the others parked in the store, and each one's outcome goes back to the
 * intake's {@link Settling}. The intake admits the records and keeps its commit rule; this side sends, parks and
 * retries.
 */
public interface ExpressLane {

    /** An express record as the intake read it. */
    interface Record {
        /** Its default id. */
        String id();

        /** Its due time, epoch ms on Redis' clock. */
        long dueAt();

        /** What to send, not encoded. */
        Envelope envelope();

        /** The store operation that parks it (its envelope encoded now): after a failed check or first send. */
        WriteOp.Schedule op();

        /** Its intake partition, which is its shard. */
        int partition();

        /** Its intake offset. */
        long offset();
    }

    /** The intake, told what became of each record handed over; any thread. */
    interface Settling<R extends Record> {
        /** Delivered, parked, or delivered by a committed transaction before: its offset may commit. */
        void settled(R record);

        /** Left for the partition's new owner to read again (this instance was fenced): it never settles here. */
        void abandoned(R record);
    }

    /** The meters of the express path; any thread. */
    interface Meters {
        /** Sent and acknowledged, {@code latenessMillis} after its due time. */
        void delivered(long latenessMillis);

        /** Parked after all: its check or its first send failed, or its shard cannot send now. */
        void fellBack();

        /** Exactly once: read again, and delivered by a committed transaction already (not sent again). */
        void alreadyDelivered();

        /** Parked: Redis holds it, with these results. */
        void parked(List<WriteResult> results);
    }

    void start();

    /** After the consumer closed (its revocation waited for the express records): ends the threads. */
    void stop() throws InterruptedException;

    /**
     * A poll is stored (its write done, its refused records deadlettered), and its express records {@code records}
     * passed or failed their checks ({@code checks}): those that passed are sent, the others parked; each settles on
     * {@code settling}. {@code sequence} is the poll's number, {@code latestSequence} the last poll submitted so far:
     * its checks, and those before it, ran before a park decided now is written.
     */
    <R extends Record> void stored(
            List<R> records, WrittenBatch checks, long sequence, long latestSequence, Settling<? super R> settling);
}

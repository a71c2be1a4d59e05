package io.delaybridge.bridge.intake;

import io.delaybridge.bridge.express.ExpressPath;
import io.delaybridge.bridge.express.IntakeDelivery;
import io.delaybridge.bridge.store.DelayStore;
import io.delaybridge.bridge.store.WrittenBatch;
import io.delaybridge.bridge.time.RedisClock;

/**
 * The intake's side of the express path: the {@link ExpressGate} that admits records at translation, and the sending
 * layer's {@link ExpressPath} that each stored poll's express records are handed to. As a record settles its place in
 * the gate frees up and its poll may commit ({@link ExpressCommits}); with exactly once its offset commits in its
 * shard's transactions ({@link ExpressOffsets}). Without a gate the path is off.
 */
final class IntakeExpress {

    /** Null: the express path is off. */
    private final ExpressGate gate;
    /** Null: the express path is off. */
    private final ExpressPath lane;

    private final IntakeDelivery sends;

    private IntakeExpress(ExpressGate gate, ExpressPath lane, IntakeDelivery sends) {
        this.gate = gate;
        this.lane = lane;
        this.sends = sends;
    }

    /** The express path of the intake, off if {@code intake.expressWindow} is, or if nothing sends. */
    static IntakeExpress of(
            IntakeSettings settings,
            IntakeDelivery sends,
            DelayStore store,
            IntakeMetrics metrics,
            RedisClock redisClock) {
        if (settings.expressWindowMillis() == ExpressGate.OFF || sends == null) {
            return new IntakeExpress(null, null, sends);
        }
        ExpressGate gate = new ExpressGate(
                settings.expressWindowMillis(), settings.expressBufferRecords(), settings.expressBufferBytes());
        return new IntakeExpress(
                gate, sends.express(settings.expressWindowMillis(), store, metrics, redisClock), sends);
    }

    /** The gate, or null if the path is off. */
    ExpressGate gate() {
        return gate;
    }

    /** Express records held in memory now. */
    int heldRecords() {
        return gate == null ? 0 : gate.heldRecords();
    }

    void start() {
        if (lane != null) {
            lane.start();
        }
    }

    void stop() throws InterruptedException {
        if (lane != null) {
            lane.stop();
        }
    }

    /**
     * With exactly once and the path on, the rule by which {@code topic}'s offsets commit in shard transactions, set
     * for the sends to carry; else null. One per consumer.
     */
    ExpressOffsets offsets(String topic) {
        if (lane == null || !sends.exactlyOnce()) {
            return null;
        }
        ExpressOffsets offsets = new ExpressOffsets(topic);
        sends.carryOffsets(offsets);
        return offsets;
    }

    /**
     * The oldest batch is stored and its express checks answered ({@code checked}): its express records (some) go to
     * the lane, each settling on {@code settling}. {@code latestSequence}: the last poll submitted so far.
     */
    void stored(
            PollWriter.WrittenPoll written, WrittenBatch checked, long latestSequence, ExpressCommits.Poll settling) {
        lane.stored(
                written.poll().express(),
                checked,
                written.sequence(),
                latestSequence,
                new ExpressPath.Settling<IntakePoll.ExpressRecord>() {
                    @Override
                    public void settled(IntakePoll.ExpressRecord record) {
                        gate.released(record.bytes());
                        settling.settle(record.partition(), record.offset());
                    }

                    @Override
                    public void abandoned(IntakePoll.ExpressRecord record) {
                        gate.released(record.bytes());
                        settling.abandon(record.partition()); // the other partitions' commits go on
                    }
                });
    }
}

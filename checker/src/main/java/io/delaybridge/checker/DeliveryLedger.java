package io.delaybridge.checker;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * What happened to each numbered record: whether the broker acknowledged its intake record (and where, hence its
 * default delay-id), when it was due, how often it arrived in a target or the deadletter topic, the earliest such
 * arrival, and whether every copy carried the expected delay-id.
 *
 * <p>The producer thread writes the intake side, the consumer thread the delivery side; the report reads both once
 * the campaign has drained.
 */
final class DeliveryLedger {

    private static final long NONE = Long.MIN_VALUE;

    private final String intakeTopic;
    private final AtomicLongArray dueAt; // NONE until the broker acknowledged the intake record
    private final AtomicIntegerArray intakePartition;
    private final AtomicLongArray intakeOffset;
    private final AtomicIntegerArray deliveries;
    private final AtomicIntegerArray deadlettered;
    private final AtomicLongArray firstArrival;
    private final AtomicIntegerArray delayIdHash;
    private volatile long wrongIds;
    private volatile long strangers;
    private final List<String> wrongIdExamples = new ArrayList<>();

    DeliveryLedger(int records, String intakeTopic) {
        this.intakeTopic = intakeTopic;
        dueAt = new AtomicLongArray(records);
        intakePartition = new AtomicIntegerArray(records);
        intakeOffset = new AtomicLongArray(records);
        deliveries = new AtomicIntegerArray(records);
        deadlettered = new AtomicIntegerArray(records);
        firstArrival = new AtomicLongArray(records);
        delayIdHash = new AtomicIntegerArray(records);
        for (int n = 0; n < records; n++) {
            dueAt.set(n, NONE);
            firstArrival.set(n, Long.MAX_VALUE);
        }
    }

    int records() {
        return dueAt.length();
    }

    void acknowledged(int n, int partition, long offset, long dueAtMillis) {
        intakePartition.set(n, partition);
        intakeOffset.set(n, offset);
        dueAt.set(n, dueAtMillis);
    }

    boolean isAcknowledged(int n) {
        return dueAt.get(n) != NONE;
    }

    long dueAt(int n) {
        return dueAt.get(n);
    }

    int intakePartition(int n) {
        return intakePartition.get(n);
    }

    long intakeOffset(int n) {
        return intakeOffset.get(n);
    }

    /** The delay-id the bridge gives record {@code n} by default: {@code <intake topic>-<partition>-<offset>}. */
    String expectedDelayId(int n) {
        return intakeTopic + "-" + intakePartition.get(n) + "-" + intakeOffset.get(n);
    }

    /** Records one copy of record {@code n} arriving at {@code timestamp} (the broker's append time). */
    void arrived(int n, long timestamp, String delayId, boolean deadletter) {
        if (n < 0 || n >= records()) {
            strangers++;
            return;
        }
        firstArrival.accumulateAndGet(n, timestamp, Math::min);
        if (deadletter) {
            deadlettered.incrementAndGet(n);
            return;
        }
        int hash = delayId == null ? 0 : delayId.hashCode();
        if (deliveries.incrementAndGet(n) == 1) {
            delayIdHash.set(n, hash);
        } else if (delayIdHash.get(n) != hash) {
            noteWrongId(n, delayId, "a repeat of record " + n + " carries another delay-id");
        }
    }

    int copies(int n) {
        return deliveries.get(n) + deadlettered.get(n);
    }

    int deadletteredCopies(int n) {
        return deadlettered.get(n);
    }

    long firstArrival(int n) {
        return firstArrival.get(n);
    }

    /** After the drain: checks the first copy's delay-id against the default id of the acknowledged intake record. */
    void checkDelayIds() {
        for (int n = 0; n < records(); n++) {
            if (isAcknowledged(n)
                    && copies(n) > 0
                    && deliveries.get(n) > 0
                    && delayIdHash.get(n) != expectedDelayId(n).hashCode()) {
                noteWrongId(n, null, "record " + n + " arrived without delay-id " + expectedDelayId(n));
            }
        }
    }

    private synchronized void noteWrongId(int n, String delayId, String text) {
        wrongIds++;
        if (wrongIdExamples.size() < 5) {
            wrongIdExamples.add(text + (delayId == null ? "" : " (" + delayId + ")"));
        }
    }

    long wrongIds() {
        return wrongIds;
    }

    synchronized List<String> wrongIdExamples() {
        return List.copyOf(wrongIdExamples);
    }

    long strangers() {
        return strangers;
    }

    /** Acknowledged records that have not arrived anywhere yet. */
    long missing() {
        long missing = 0;
        for (int n = 0; n < records(); n++) {
            if (isAcknowledged(n) && copies(n) == 0) {
                missing++;
            }
        }
        return missing;
    }

    static long[] sorted(long[] values) {
        long[] copy = values.clone();
        Arrays.sort(copy);
        return copy;
    }
}

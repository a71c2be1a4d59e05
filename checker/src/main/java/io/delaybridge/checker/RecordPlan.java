package io.delaybridge.checker;

import java.util.SplittableRandom;

/**
 * The seeded delays of a campaign's records: 5% due at once (delay 0), 5% due at one shared instant (a
 * {@code delay-until}, so many messages fall due in the same millisecond), the rest uniform between 0 and the
 * maximum delay. Record {@code n} goes to target {@code n mod targets}.
 */
final class RecordPlan {

    /** Marks a record that is due at the shared instant rather than after a delay. */
    static final long AT_SHARED_INSTANT = -1;

    private final long[] delays;
    private final long sharedInstant;
    private final int targets;

    RecordPlan(int records, long seed, long maxDelayMillis, long sharedInstant, int targets) {
        this.delays = new long[records];
        this.sharedInstant = sharedInstant;
        this.targets = targets;
        SplittableRandom random = new SplittableRandom(seed);
        for (int n = 0; n < records; n++) {
            int kind = random.nextInt(100);
            delays[n] = kind < 5 ? 0 : kind < 10 ? AT_SHARED_INSTANT : random.nextLong(maxDelayMillis + 1);
        }
    }

    int records() {
        return delays.length;
    }

    /** The delay in milliseconds, or {@link #AT_SHARED_INSTANT}. */
    long delayMillis(int n) {
        return delays[n];
    }

    long sharedInstant() {
        return sharedInstant;
    }

    int target(int n) {
        return n % targets;
    }

    /** When record {@code n} is due, given the broker's timestamp of its intake record. */
    long dueAt(int n, long intakeTimestamp) {
        return delays[n] == AT_SHARED_INSTANT ? Math.max(sharedInstant, intakeTimestamp) : intakeTimestamp + delays[n];
    }
}

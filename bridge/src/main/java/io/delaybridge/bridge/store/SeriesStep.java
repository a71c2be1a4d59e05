package io.delaybridge.bridge.store;

/**
 * A delivered occurrence of a series and what follows it: settled together by {@link DelayStore#settleSeriesAsync}.
 *
 * @param ref     the series' message
 * @param nextDue the next occurrence's due time (epoch ms), or {@link #OVER} when the series ends with this one
 * @param value   the stored value for the next occurrence (the claimed value's origin header, then the envelope that
 *                names it pending); null when over
 */
public record SeriesStep(MessageRef ref, long nextDue, byte[] value) {

    /** {@link #nextDue} of a series that is over. */
    public static final long OVER = Long.MIN_VALUE;

    /** @return whether the series goes on after this occurrence */
    public boolean goesOn() {
        return nextDue != OVER;
    }
}

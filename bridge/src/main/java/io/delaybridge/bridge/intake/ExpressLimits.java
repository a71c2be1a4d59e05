package io.delaybridge.bridge.intake;

/**
 * Which records take the express path, and how many may wait in memory for it.
 *
 * @param windowMillis  records due at most this long after Redis' clock when read are delivered from the intake (the
 *                      express path); {@link ExpressGate#OFF} turns the path off
 * @param bufferRecords at most this many express records are held in memory at once; more park in the store
 * @param bufferBytes   at most this many bytes of express records are held in memory at once
 */
public record ExpressLimits(long windowMillis, int bufferRecords, long bufferBytes) {

    /** The express path off. */
    public static final ExpressLimits OFF = new ExpressLimits(ExpressGate.OFF, 0, 0);
}

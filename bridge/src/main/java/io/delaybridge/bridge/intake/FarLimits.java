package io.delaybridge.bridge.intake;

import java.time.Duration;

/**
 * Which schedules wait in the far tier.
 *
 * @param hotWindowMillis        schedules due more than this long after now when read wait in the far tier (their
 *                               payload left in the intake's log), if its retention keeps them ({@link FarPolicy});
 *                               {@link FarPolicy#OFF} keeps every record hot
 * @param retentionMarginMillis  a record waits far only if the intake keeps it until its due time plus this
 * @param retentionCheckInterval how often the intake topic's retention is read again ({@link RetentionWatch})
 */
public record FarLimits(long hotWindowMillis, long retentionMarginMillis, Duration retentionCheckInterval) {

    /** The far tier off. */
    public static final FarLimits OFF = new FarLimits(FarPolicy.OFF, 0, Duration.ofMinutes(5));
}

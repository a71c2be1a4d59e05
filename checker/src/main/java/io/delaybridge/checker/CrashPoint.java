package io.delaybridge.checker;

import io.delaybridge.bridge.probe.Checkpoint;
import java.util.Arrays;
import java.util.Locale;

/**
 * The places in the data path where the fault campaign makes a bridge die as if killed with {@code kill -9}: the
 * bridge's {@link Checkpoint}s, by the names the campaign's bridges read. {@link Crashes}, the probe a
 * {@link FaultyBridge} hands the application, decides whether reaching one halts the JVM.
 *
 * <p>Armed by the environment of a {@link FaultyBridge} (or the system properties of the same name in lower case with
 * dots), read once at start-up by {@link Crashes#fromEnvironment}: {@code DELAY_CRASH_POINT=after-claim-before-send}
 * names the point, {@code DELAY_CRASH_AFTER=3} makes the third time it is reached the fatal one (default 1).
 *
 * <pre>{@code
 * DELAY_CRASH_POINT=after-store-before-commit DELAY_CRASH_AFTER=5 \
 *   java -cp bridge/target/delay-bridge.jar:checker/target/classes io.delaybridge.checker.FaultyBridge server config.yml
 * }</pre>
 */
public enum CrashPoint {
    /** The intake wrote a batch to Redis and the deadletter topic, and has not committed its offsets yet. */
    AFTER_STORE_BEFORE_COMMIT(Checkpoint.STORED_BEFORE_COMMIT),
    /** The pump claimed a batch (it is in flight under a lease) and has not sent any of it yet. */
    AFTER_CLAIM_BEFORE_SEND(Checkpoint.CLAIMED_BEFORE_SEND),
    /** The pump's producer acknowledged sends and the pump has not acked them in Redis yet. */
    AFTER_SEND_BEFORE_ACK(Checkpoint.SENT_BEFORE_ACK);

    /** Exit status of a bridge that halted at a crash point, so a supervisor can tell it from other deaths. */
    public static final int EXIT_STATUS = 86;

    private final Checkpoint checkpoint;

    CrashPoint(Checkpoint checkpoint) {
        this.checkpoint = checkpoint;
    }

    /** The bridge's checkpoint where this point is. */
    public Checkpoint checkpoint() {
        return checkpoint;
    }

    /** The name used in {@code DELAY_CRASH_POINT}: {@code after-claim-before-send}. */
    public String settingName() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** The point named by a setting value, or null for an empty value. */
    public static CrashPoint fromSetting(String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        for (CrashPoint point : values()) {
            if (point.settingName().equals(value.trim())) {
                return point;
            }
        }
        throw new IllegalArgumentException("DELAY_CRASH_POINT=" + value + " names no crash point; use one of "
                + Arrays.stream(values()).map(CrashPoint::settingName).toList());
    }
}

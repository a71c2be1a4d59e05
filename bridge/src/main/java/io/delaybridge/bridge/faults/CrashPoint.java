package io.delaybridge.bridge.faults;

import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A testing facility: named places in the data path where the fault campaign can make the bridge die as if killed
 * with {@code kill -9} ({@link Runtime#halt}: no shutdown hooks, no flush, no commit).
 *
 * <p>Armed by the environment (or the system properties of the same name in lower case with dots):
 * {@code DELAY_CRASH_POINT=after-claim-before-send} names the point, {@code DELAY_CRASH_AFTER=3} makes the third
 * time it is reached the fatal one (default 1). Unarmed, {@link #reach()} is one volatile read. Never set these in
 * production.
 *
 * <pre>{@code
 * DELAY_CRASH_POINT=after-store-before-commit DELAY_CRASH_AFTER=5 java -jar delay-bridge.jar server config.yml
 * }</pre>
 */
public enum CrashPoint {
    /** The intake wrote a batch to Redis and the deadletter topic, and has not committed its offsets yet. */
    AFTER_STORE_BEFORE_COMMIT,
    /** The pump claimed a batch (it is in flight under a lease) and has not sent any of it yet. */
    AFTER_CLAIM_BEFORE_SEND,
    /** The pump's producer acknowledged sends and the pump has not acked them in Redis yet. */
    AFTER_SEND_BEFORE_ACK;

    /** Exit status of a bridge that halted at a crash point, so a supervisor can tell it from other deaths. */
    public static final int EXIT_STATUS = 86;

    private static volatile CrashPoint armed = fromSetting(setting("DELAY_CRASH_POINT"));
    private static final AtomicLong remaining = new AtomicLong(parseCount(setting("DELAY_CRASH_AFTER")));

    /** The name used in {@code DELAY_CRASH_POINT}: {@code after-claim-before-send}. */
    public String settingName() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** Halts the JVM here if this point is armed and this is the n-th time it is reached. */
    public void reach() {
        if (armed != this) {
            return;
        }
        if (remaining.decrementAndGet() == 0) {
            System.err.println("CRASH POINT " + settingName() + ": halting the JVM (testing facility)");
            System.err.flush();
            Runtime.getRuntime().halt(EXIT_STATUS);
        }
    }

    /** Arms a point in this JVM (for tests); {@code null} disarms. */
    public static void arm(CrashPoint point, long nthTime) {
        remaining.set(nthTime);
        armed = point;
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
                + java.util.Arrays.stream(values()).map(CrashPoint::settingName).toList());
    }

    private static long parseCount(String value) {
        if (value == null || value.isBlank()) {
            return 1;
        }
        long n = Long.parseLong(value.trim());
        if (n < 1) {
            throw new IllegalArgumentException("DELAY_CRASH_AFTER=" + value + " must be 1 or more");
        }
        return n;
    }

    private static String setting(String envName) {
        String property = System.getProperty(envName.toLowerCase(Locale.ROOT).replace('_', '.'));
        return property != null ? property : System.getenv(envName);
    }
}

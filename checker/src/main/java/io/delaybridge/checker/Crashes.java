package io.delaybridge.checker;

import io.delaybridge.bridge.probe.Checkpoint;
import io.delaybridge.bridge.probe.PipelineProbe;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The probe of a {@link FaultyBridge}: halts the JVM the n-th time the pipeline reaches the armed {@link CrashPoint},
 * with a halt procedure of its own choosing (as apache/kafka's {@code Exit} keeps its halt replaceable). The campaign
 * arms one point through the environment ({@link #fromEnvironment}); a test arms one with a halt of its own
 * ({@link #armed}) and sees it called instead of the JVM ending.
 */
public final class Crashes implements PipelineProbe {

    /** What halting does: {@link Runtime#halt} (no shutdown hooks, no flush, no commit) outside tests. */
    @FunctionalInterface
    public interface Halt {
        void halt(int status);
    }

    /** Never halts. */
    public static final Crashes NONE = new Crashes(null, 1, status -> {});

    private final CrashPoint armed;
    private final AtomicLong remaining;
    private final Halt halt;

    private Crashes(CrashPoint armed, long nthTime, Halt halt) {
        this.armed = armed;
        this.remaining = new AtomicLong(nthTime);
        this.halt = halt;
    }

    /**
     * The crash point armed by {@code DELAY_CRASH_POINT} / {@code DELAY_CRASH_AFTER} (or the system properties
     * {@code delay.crash.point} / {@code delay.crash.after}), halting with {@link Runtime#halt}; {@link #NONE} when
     * they are not set.
     *
     * @throws IllegalArgumentException a setting names no crash point, or its count is below 1
     */
    public static Crashes fromEnvironment() {
        CrashPoint point = CrashPoint.fromSetting(setting("DELAY_CRASH_POINT"));
        if (point == null) {
            return NONE;
        }
        return armed(point, parseCount(setting("DELAY_CRASH_AFTER")), Runtime.getRuntime()::halt);
    }

    /** Halts with {@code halt} the {@code nthTime} {@code point} is reached. */
    public static Crashes armed(CrashPoint point, long nthTime, Halt halt) {
        return new Crashes(point, nthTime, halt);
    }

    /** Halts here if the armed point is there and this is the n-th time it is reached; else returns at once. */
    @Override
    public void reached(Checkpoint checkpoint) {
        if (armed == null || armed.checkpoint() != checkpoint) {
            return;
        }
        if (remaining.decrementAndGet() == 0) {
            System.err.println("CRASH POINT " + armed.settingName() + ": halting the JVM (fault campaign)");
            System.err.flush();
            halt.halt(CrashPoint.EXIT_STATUS);
        }
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

package io.delaybridge.checker;

import io.delaybridge.bridge.DelayBridgeApplication;
import java.time.Clock;

/**
 * The bridge as the fault campaign runs it: the same application and arguments as {@code java -jar delay-bridge.jar},
 * with a {@link CrashPoint} armed by {@code DELAY_CRASH_POINT} / {@code DELAY_CRASH_AFTER} ({@link Crashes}) and its
 * clock shifted by {@code DELAY_TEST_CLOCK_SHIFT} ({@link ClockShift}). The bridge's jar knows none of these settings:
 * this class, on the class path beside it, is the only way to arm them.
 *
 * <pre>{@code
 * DELAY_CRASH_POINT=after-claim-before-send DELAY_TEST_CLOCK_SHIFT=+1h \
 *   java -cp bridge/target/delay-bridge.jar:checker/target/classes io.delaybridge.checker.FaultyBridge server config.yml
 * }</pre>
 */
public final class FaultyBridge {

    private FaultyBridge() {}

    public static void main(String[] args) throws Exception {
        new DelayBridgeApplication(ClockShift.apply(Clock.systemUTC()), Crashes.fromEnvironment()).run(args);
    }
}

package io.delaybridge.bridge.pump;

import java.time.Clock;
import org.slf4j.Logger;

/** A WARN at most once per interval: an outage retried every 250 ms would otherwise flood the log. */
final class ThrottledWarning {

    private final Logger log;
    private final Clock clock;
    private final long intervalMillis;
    private long lastLoggedAt = Long.MIN_VALUE / 2;

    ThrottledWarning(Logger log, Clock clock, long intervalMillis) {
        this.log = log;
        this.clock = clock;
        this.intervalMillis = intervalMillis;
    }

    /** Logs unless a warning went out less than the interval ago (pump thread only). */
    void warn(String format, Object... args) {
        long now = clock.millis();
        if (now - lastLoggedAt >= intervalMillis) {
            log.warn(format, args);
            lastLoggedAt = now;
        }
    }
}

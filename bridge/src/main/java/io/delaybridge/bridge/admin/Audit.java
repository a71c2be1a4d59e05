package io.delaybridge.bridge.admin;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One log line per change made through the API or an admin task, on the logger {@code delay-bridge.audit}:
 * {@code who=<principal> action=<what> <details>}. Route it to its own appender to keep it apart.
 */
public final class Audit {

    private static final Logger LOG = LoggerFactory.getLogger("delay-bridge.audit");

    private static final ThreadLocal<String> PRINCIPAL = new ThreadLocal<>();

    private Audit() {}

    /** The principal the API's authentication filter authenticated for the request this thread serves, or null. */
    public static String principal() {
        return PRINCIPAL.get();
    }

    /** Set by the API's authentication filter for the request this thread serves; null clears it. */
    public static void principal(String principal) {
        if (principal == null) {
            PRINCIPAL.remove();
        } else {
            PRINCIPAL.set(principal);
        }
    }

    public static void log(String who, String action, String details) {
        LOG.info("who={} action={} {}", who == null ? "(anonymous)" : who, action, details);
    }
}

package io.delaybridge.checker;

import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/** The kinds of fault a campaign injects into the real processes. */
public enum Fault {
    /** A bridge halts at {@link CrashPoint#AFTER_STORE_BEFORE_COMMIT}. */
    CRASH_STORE(CrashPoint.AFTER_STORE_BEFORE_COMMIT),
    /** A bridge halts at {@link CrashPoint#AFTER_CLAIM_BEFORE_SEND}. */
    CRASH_CLAIM(CrashPoint.AFTER_CLAIM_BEFORE_SEND),
    /** A bridge halts at {@link CrashPoint#AFTER_SEND_BEFORE_ACK}. */
    CRASH_SEND(CrashPoint.AFTER_SEND_BEFORE_ACK),
    /** kill -9 of a random bridge at a random moment. */
    KILL(null),
    /**
     * kill -9 of redis-server (AOF, fsync always), then a restart; on a cluster, kill -9 of a master: its replica
     * takes over, then the old master is restarted and rejoins as a replica.
     */
    REDIS(null),
    /** kill -9 of the Kafka broker, then a restart. */
    BROKER(null),
    /** A bridge joins the group and leaves it gracefully (SIGTERM) after the rebalance hold. */
    REBALANCE(null),
    /** SIGSTOP of a bridge for longer than its lease, then SIGCONT. */
    ZOMBIE(null),
    /**
     * {@code deleteRecords} on one intake partition up to a point below which far records still wait (needs
     * {@code --hot-window}): those records are lost on purpose, and every bridge that finds one gone must report it.
     */
    DELETE_FAR(null);

    private final CrashPoint crashPoint;

    Fault(CrashPoint crashPoint) {
        this.crashPoint = crashPoint;
    }

    /** The crash point this fault arms, or null. */
    public CrashPoint crashPoint() {
        return crashPoint;
    }

    /** Whether this fault ends a bridge without a graceful stop (its in-flight messages may be delivered twice). */
    public boolean killsABridge() {
        return crashPoint != null || this == KILL || this == ZOMBIE;
    }

    /** Whether this fault needs the load still running (a crash point to reach, far records to delete). */
    public boolean needsTraffic() {
        return crashPoint != null || this == DELETE_FAR;
    }

    /** Whether this fault loses acknowledged records on purpose (and the bridges must report them). */
    public boolean losesRecords() {
        return this == DELETE_FAR;
    }

    public String optionName() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    public static Fault fromName(String name) {
        return Arrays.stream(values())
                .filter(f -> f.optionName().equals(name))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("unknown fault " + name + "; use one of "
                        + Arrays.stream(values()).map(Fault::optionName).toList()));
    }

    static String describe(Map<Fault, Integer> faults) {
        return faults.isEmpty()
                ? "none"
                : faults.entrySet().stream()
                        .map(e -> e.getKey().optionName() + "=" + e.getValue())
                        .collect(Collectors.joining(","));
    }
}

package io.delaybridge.bridge.intake;

import java.util.Locale;
import java.util.Map;

/**
 * Whether a record may wait in the far tier (its payload left in the intake topic's log until it is thawed) given the
 * intake topic's retention settings, as {@code Admin.describeConfigs} reports them: a record may wait there only if
 * the log is sure to hold it at its due time plus {@code marginMillis}.
 *
 * <ul>
 *   <li>{@code cleanup.policy} with {@code compact}: a compacted log may drop a record for a newer one of its key
 *       before it is due: the far tier is off.</li>
 *   <li>{@code retention.bytes} other than -1: size-based retention deletes by volume, which no due time can be checked
 *       against: the far tier is off.</li>
 *   <li>Otherwise Kafka keeps a segment at least {@code retention.ms} after its newest record's timestamp, so a record
 *       at least {@code retention.ms} after its own timestamp: it may wait if its due time plus the margin falls
 *       within that ({@code retention.ms} -1: always). With tiered storage ({@code remote.storage.enable}),
 *       {@code retention.ms} is the total retention, local and remote; {@code local.retention.ms} only says what stays
 *       on the broker's disks, and a thaw reads remote segments through the same fetch.</li>
 * </ul>
 * A record whose timestamp is unknown stays hot. Holds no connection; pure logic, not wired yet (docs/redis-store.md,
 * "The far tier").
 *
 * @param reason why the far tier is off, naming the setting and the fix; null when it is on
 */
record FarRetention(String topic, long retentionMillis, long marginMillis, String reason) {

    static final long INFINITE = -1;

    /** The intake's retention from its topic configuration (names and values as Kafka reports them). */
    static FarRetention of(String topic, Map<String, String> config, long marginMillis) {
        String policy = config.getOrDefault("cleanup.policy", "delete").toLowerCase(Locale.ROOT);
        if (policy.contains("compact")) {
            return off(
                    topic,
                    marginMillis,
                    "cleanup.policy=" + policy + " on the intake topic " + topic + ": a "
                            + "compacted log may drop a record before it is due. Every record stays in Redis; to use the far "
                            + "tier, set cleanup.policy=delete on " + topic);
        }
        long bytes = number(config, "retention.bytes", INFINITE);
        if (bytes != INFINITE) {
            return off(
                    topic,
                    marginMillis,
                    "retention.bytes=" + bytes + " on the intake topic " + topic + ": "
                            + "size-based retention may delete a record before it is due. Every record stays in Redis; to use "
                            + "the far tier, set retention.bytes=-1 on " + topic + " and size it by retention.ms "
                            + "(docs/redis-store.md, \"The far tier\")");
        }
        long millis = number(config, "retention.ms", 7L * 24 * 3_600_000);
        return new FarRetention(topic, millis, marginMillis, null);
    }

    private static FarRetention off(String topic, long marginMillis, String reason) {
        return new FarRetention(topic, 0, marginMillis, reason);
    }

    private static long number(Map<String, String> config, String name, long fallback) {
        String value = config.get(name);
        if (value == null || value.isBlank()) {
            return fallback;
        }
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("The intake topic's " + name + " is '" + value + "', not a number", e);
        }
    }

    /** Whether the far tier may be used at all. */
    boolean on() {
        return reason == null;
    }

    /**
     * Whether a record written at {@code timestamp} (epoch ms; negative: unknown) and due at {@code dueAt} is sure to
     * be in the log at its due time plus the margin.
     */
    boolean mayWaitFar(long timestamp, long dueAt) {
        if (!on() || timestamp < 0) {
            return false;
        }
        if (retentionMillis == INFINITE) {
            return true;
        }
        return dueAt - timestamp <= retentionMillis - marginMillis;
    }
}

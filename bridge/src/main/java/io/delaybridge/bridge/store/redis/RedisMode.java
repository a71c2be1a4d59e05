package io.delaybridge.bridge.store.redis;

import java.util.Locale;

/**
 * How the store talks to Redis. {@link #AUTO} (the default) finds out at start-up: a {@code redis-sentinel://} URI is
 * Sentinel; otherwise the first seed that answers is asked {@code INFO cluster}, and {@code cluster_enabled:1} makes
 * it a cluster.
 */
public enum RedisMode {
    AUTO,
    /** One Redis server (with or without replicas): every key on it. */
    STANDALONE,
    /** A master found through Sentinel ({@code redis-sentinel://host:26379,host2:26379#name}), followed on fail-over. */
    SENTINEL,
    /** A Redis Cluster: every shard's scripts run on the master that owns the shard's hash tag. */
    CLUSTER;

    /** The mode for a setting value ({@code auto}, {@code standalone}, {@code sentinel}, {@code cluster}). */
    public static RedisMode parse(String value) {
        try {
            return valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new IllegalArgumentException(
                    "redis mode '" + value + "' is not one of auto, standalone, sentinel," + " cluster", e);
        }
    }

    /** The setting value, lower case. */
    public String setting() {
        return name().toLowerCase(Locale.ROOT);
    }
}

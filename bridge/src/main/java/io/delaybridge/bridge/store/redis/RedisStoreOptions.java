package io.delaybridge.bridge.store.redis;

import java.time.Duration;
import java.util.Objects;

/**
 * Settings of the Redis store. Plain values: the configuration layer validates and documents them for users and builds
 * this record.
 *
 * @param redisUri Lettuce URI: {@code redis://[:password@]host:port[/db]}, {@code rediss://} for TLS,
 *     {@code redis-sentinel://host:26379,host2:26379#mymaster} for Sentinel
 * @param keyPrefix the first part of every key, e.g. {@code dq}; must not contain braces
 * @param intakeTopic the intake topic: part of every key's hash tag, and of default message ids
 * @param shardCount the shard count to use if the store is new (normally the intake topic's partition count); an
 *     existing store keeps the count it was created with
 * @param waitReplicas if above 0, every write batch ends with {@code WAIT waitReplicas waitTimeout} and fails unless
 *     that many replicas acknowledged it
 * @param waitTimeout how long {@code WAIT} waits for the replicas
 * @param commandTimeout how long any other Redis command may take before it fails as unavailable
 * @param mode standalone, Sentinel or Cluster; {@link RedisMode#AUTO} finds out at start-up
 * @param tls trust material, client certificate and peer verification for a {@code rediss://} URI
 */
public record RedisStoreOptions(
        String redisUri,
        String keyPrefix,
        String intakeTopic,
        int shardCount,
        int waitReplicas,
        Duration waitTimeout,
        Duration commandTimeout,
        RedisMode mode,
        RedisTls tls) {

    public static final String DEFAULT_KEY_PREFIX = "dq";
    public static final Duration DEFAULT_WAIT_TIMEOUT = Duration.ofSeconds(1);
    public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(5);

    public RedisStoreOptions {
        Objects.requireNonNull(redisUri, "redisUri");
        RedisKeys.validatePrefix(keyPrefix);
        if (intakeTopic == null || intakeTopic.isEmpty()) {
            throw new IllegalArgumentException("intakeTopic must be set");
        }
        if (shardCount < 1) {
            throw new IllegalArgumentException("shardCount is " + shardCount + ": it must be at least 1");
        }
        if (waitReplicas < 0) {
            throw new IllegalArgumentException("waitReplicas is " + waitReplicas + ": it must be 0 (no WAIT) or more");
        }
        Objects.requireNonNull(waitTimeout, "waitTimeout");
        Objects.requireNonNull(commandTimeout, "commandTimeout");
        if (waitReplicas > 0 && (waitTimeout.isNegative() || waitTimeout.isZero())) {
            throw new IllegalArgumentException("waitTimeout is " + waitTimeout + " with waitReplicas " + waitReplicas
                    + ": it must be positive (WAIT 0 would wait forever)");
        }
        if (commandTimeout.isNegative() || commandTimeout.isZero()) {
            throw new IllegalArgumentException("commandTimeout is " + commandTimeout + ": it must be positive");
        }
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(tls, "tls");
    }

    /** As the canonical constructor, with no TLS settings ({@link RedisTls#DEFAULTS}). */
    public RedisStoreOptions(
            String redisUri,
            String keyPrefix,
            String intakeTopic,
            int shardCount,
            int waitReplicas,
            Duration waitTimeout,
            Duration commandTimeout,
            RedisMode mode) {
        this(
                redisUri,
                keyPrefix,
                intakeTopic,
                shardCount,
                waitReplicas,
                waitTimeout,
                commandTimeout,
                mode,
                RedisTls.DEFAULTS);
    }

    /** As the canonical constructor, with {@link RedisMode#AUTO}. */
    public RedisStoreOptions(
            String redisUri,
            String keyPrefix,
            String intakeTopic,
            int shardCount,
            int waitReplicas,
            Duration waitTimeout,
            Duration commandTimeout) {
        this(redisUri, keyPrefix, intakeTopic, shardCount, waitReplicas, waitTimeout, commandTimeout, RedisMode.AUTO);
    }

    /** Defaults for everything but the URI, topic and shard count: prefix {@code dq}, no WAIT, 5 s command timeout. */
    public static RedisStoreOptions of(String redisUri, String intakeTopic, int shardCount) {
        return new RedisStoreOptions(
                redisUri,
                DEFAULT_KEY_PREFIX,
                intakeTopic,
                shardCount,
                0,
                DEFAULT_WAIT_TIMEOUT,
                DEFAULT_COMMAND_TIMEOUT,
                RedisMode.AUTO);
    }

    public RedisStoreOptions withKeyPrefix(String prefix) {
        return new RedisStoreOptions(
                redisUri, prefix, intakeTopic, shardCount, waitReplicas, waitTimeout, commandTimeout, mode, tls);
    }

    public RedisStoreOptions withWait(int replicas, Duration timeout) {
        return new RedisStoreOptions(
                redisUri, keyPrefix, intakeTopic, shardCount, replicas, timeout, commandTimeout, mode, tls);
    }

    public RedisStoreOptions withCommandTimeout(Duration timeout) {
        return new RedisStoreOptions(
                redisUri, keyPrefix, intakeTopic, shardCount, waitReplicas, waitTimeout, timeout, mode, tls);
    }

    public RedisStoreOptions withMode(RedisMode newMode) {
        return new RedisStoreOptions(
                redisUri, keyPrefix, intakeTopic, shardCount, waitReplicas, waitTimeout, commandTimeout, newMode, tls);
    }

    public RedisStoreOptions withTls(RedisTls newTls) {
        return new RedisStoreOptions(
                redisUri, keyPrefix, intakeTopic, shardCount, waitReplicas, waitTimeout, commandTimeout, mode, newTls);
    }

    /** Whether the URI names sentinels: {@code redis-sentinel://} or {@code rediss-sentinel://} (TLS). */
    public boolean namesSentinels() {
        return redisUri.startsWith("redis-sentinel:") || redisUri.startsWith("rediss-sentinel:");
    }

    /** Whether the URI asks for TLS: {@code rediss://} or {@code rediss-sentinel://}. */
    public boolean usesTls() {
        return redisUri.startsWith("rediss:") || redisUri.startsWith("rediss-sentinel:");
    }

    /** The URI without its password, for messages and logs. */
    public String redactedUri() {
        return redact(redisUri);
    }

    @Override
    public String toString() {
        return "RedisStoreOptions[redisUri=" + redactedUri() + ", keyPrefix=" + keyPrefix + ", intakeTopic="
                + intakeTopic + ", shardCount=" + shardCount + ", waitReplicas=" + waitReplicas + ", waitTimeout="
                + waitTimeout + ", commandTimeout=" + commandTimeout + ", mode=" + mode.setting() + ", tls=" + tls
                + "]";
    }

    /** Replaces the user-info part of a URI ({@code user:password@}) with {@code ***@}. */
    static String redact(String uri) {
        int scheme = uri.indexOf("://");
        int start = scheme < 0 ? 0 : scheme + 3;
        int at = uri.lastIndexOf('@');
        if (at < start) {
            return uri;
        }
        return uri.substring(0, start) + "***" + uri.substring(at);
    }
}

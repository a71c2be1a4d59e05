package io.delaybridge.bridge.store.redis;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * Settings of the Redis store. Plain values: the configuration layer validates and documents them for users and builds
 * this record.
 *
 * @param endpoint which Redis and how to talk to it: URI, mode, TLS, command timeout
 * @param keyPrefix the first part of every key, e.g. {@code dq}; must not contain braces
 * @param intakeTopic the intake topic: part of every key's hash tag, and of default message ids
 * @param shardCount the shard count to use if the store is new (normally the intake topic's partition count); an
 *     existing store keeps the count it was created with
 * @param waitReplicas if above 0, every write batch ends with {@code WAIT waitReplicas waitTimeout} and fails unless
 *     that many replicas acknowledged it
 * @param waitTimeout how long {@code WAIT} waits for the replicas
 * @param laneWeights target topic -> its lane's weight in a claim (claim.lua), for targets that weigh other than 1
 */
public record RedisStoreOptions(
        RedisEndpoint endpoint,
        String keyPrefix,
        String intakeTopic,
        int shardCount,
        int waitReplicas,
        Duration waitTimeout,
        Map<String, Integer> laneWeights) {

    public static final String DEFAULT_KEY_PREFIX = "dq";
    public static final Duration DEFAULT_WAIT_TIMEOUT = Duration.ofSeconds(1);
    public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(5);

    public RedisStoreOptions {
        Objects.requireNonNull(endpoint, "endpoint");
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
        laneWeights = Map.copyOf(laneWeights);
        laneWeights.forEach((target, weight) -> {
            if (weight < 1) {
                throw new IllegalArgumentException("the weight of " + target + " is " + weight + ": it must be >= 1");
            }
        });
        if (waitReplicas > 0 && (waitTimeout.isNegative() || waitTimeout.isZero())) {
            throw new IllegalArgumentException("waitTimeout is " + waitTimeout + " with waitReplicas " + waitReplicas
                    + ": it must be positive (WAIT 0 would wait forever)");
        }
    }

    /** Defaults for everything but the URI, topic and shard count: prefix {@code dq}, no WAIT, 5 s command timeout. */
    public static RedisStoreOptions of(String redisUri, String intakeTopic, int shardCount) {
        return new RedisStoreOptions(
                RedisEndpoint.of(redisUri),
                DEFAULT_KEY_PREFIX,
                intakeTopic,
                shardCount,
                0,
                DEFAULT_WAIT_TIMEOUT,
                Map.of());
    }

    public String redisUri() {
        return endpoint.uri();
    }

    public Duration commandTimeout() {
        return endpoint.commandTimeout();
    }

    public RedisMode mode() {
        return endpoint.mode();
    }

    public RedisTls tls() {
        return endpoint.tls();
    }

    public RedisStoreOptions withKeyPrefix(String prefix) {
        return new RedisStoreOptions(endpoint, prefix, intakeTopic, shardCount, waitReplicas, waitTimeout, laneWeights);
    }

    public RedisStoreOptions withWait(int replicas, Duration timeout) {
        return new RedisStoreOptions(endpoint, keyPrefix, intakeTopic, shardCount, replicas, timeout, laneWeights);
    }

    public RedisStoreOptions withCommandTimeout(Duration timeout) {
        return withEndpoint(new RedisEndpoint(endpoint.uri(), endpoint.mode(), endpoint.tls(), timeout));
    }

    public RedisStoreOptions withMode(RedisMode newMode) {
        return withEndpoint(new RedisEndpoint(endpoint.uri(), newMode, endpoint.tls(), endpoint.commandTimeout()));
    }

    public RedisStoreOptions withTls(RedisTls newTls) {
        return withEndpoint(new RedisEndpoint(endpoint.uri(), endpoint.mode(), newTls, endpoint.commandTimeout()));
    }

    private RedisStoreOptions withEndpoint(RedisEndpoint newEndpoint) {
        return new RedisStoreOptions(
                newEndpoint, keyPrefix, intakeTopic, shardCount, waitReplicas, waitTimeout, laneWeights);
    }

    /** With these lane weights (target topic -> weight >= 1; a target not named weighs 1). */
    public RedisStoreOptions withLaneWeights(Map<String, Integer> weights) {
        return new RedisStoreOptions(endpoint, keyPrefix, intakeTopic, shardCount, waitReplicas, waitTimeout, weights);
    }

    /** Whether the URI names sentinels: {@code redis-sentinel://} or {@code rediss-sentinel://} (TLS). */
    public boolean namesSentinels() {
        return redisUri().startsWith("redis-sentinel:") || redisUri().startsWith("rediss-sentinel:");
    }

    /** Whether the URI asks for TLS: {@code rediss://} or {@code rediss-sentinel://}. */
    public boolean usesTls() {
        return redisUri().startsWith("rediss:") || redisUri().startsWith("rediss-sentinel:");
    }

    /** The URI without its password, for messages and logs. */
    public String redactedUri() {
        return redact(redisUri());
    }

    @Override
    public String toString() {
        return "RedisStoreOptions[redisUri=" + redactedUri() + ", keyPrefix=" + keyPrefix + ", intakeTopic="
                + intakeTopic + ", shardCount=" + shardCount + ", waitReplicas=" + waitReplicas + ", waitTimeout="
                + waitTimeout + ", laneWeights=" + laneWeights + ", commandTimeout=" + commandTimeout() + ", mode="
                + mode().setting() + ", tls=" + tls()
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

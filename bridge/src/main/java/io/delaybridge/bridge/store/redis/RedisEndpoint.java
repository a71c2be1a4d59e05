package io.delaybridge.bridge.store.redis;

import java.time.Duration;
import java.util.Objects;

/**
 * Which Redis the store talks to, and how: part of {@link RedisStoreOptions}.
 *
 * @param uri Lettuce URI: {@code redis://[:password@]host:port[/db]}, {@code rediss://} for TLS,
 *     {@code redis-sentinel://host:26379,host2:26379#mymaster} for Sentinel
 * @param mode standalone, Sentinel or Cluster; {@link RedisMode#AUTO} finds out at start-up
 * @param tls trust material, client certificate and peer verification for a {@code rediss://} URI
 * @param commandTimeout how long a Redis command other than {@code WAIT} may take before it fails as unavailable
 */
public record RedisEndpoint(String uri, RedisMode mode, RedisTls tls, Duration commandTimeout) {

    public RedisEndpoint {
        Objects.requireNonNull(uri, "redisUri");
        Objects.requireNonNull(commandTimeout, "commandTimeout");
        if (commandTimeout.isNegative() || commandTimeout.isZero()) {
            throw new IllegalArgumentException("commandTimeout is " + commandTimeout + ": it must be positive");
        }
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(tls, "tls");
    }

    /** {@code uri} in {@link RedisMode#AUTO}, without TLS settings, with the default command timeout. */
    public static RedisEndpoint of(String uri) {
        return new RedisEndpoint(uri, RedisMode.AUTO, RedisTls.DEFAULTS, RedisStoreOptions.DEFAULT_COMMAND_TIMEOUT);
    }
}

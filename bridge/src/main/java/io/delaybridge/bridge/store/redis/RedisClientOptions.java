package io.delaybridge.bridge.store.redis;

import io.delaybridge.bridge.store.StoreConfigurationException;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.MaintNotificationsConfig;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterURIUtil;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.protocol.ProtocolVersion;
import io.lettuce.core.protocol.RedisCommand;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * How the store's Lettuce clients are set up from {@link RedisStoreOptions}: the seeds of the URI, the client options
 * (timeouts, TLS, RESP2, reconnects, fail-fast while disconnected) and, on a cluster, how the slot map is followed.
 */
final class RedisClientOptions {

    private RedisClientOptions() {}

    /** Seeds of a {@code redis://a:7000,b:7001} URI (one for a single host), each with the URI's settings. */
    static List<RedisURI> seeds(RedisStoreOptions options) {
        try {
            List<RedisURI> seeds = RedisClusterURIUtil.toRedisURIs(URI.create(options.redisUri()));
            for (RedisURI seed : seeds) {
                seed.setTimeout(options.commandTimeout());
                seed.setVerifyPeer(options.tls().verify().lettuce());
            }
            return seeds;
        } catch (RuntimeException e) {
            throw badUri(options, e);
        }
    }

    static StoreConfigurationException badUri(RedisStoreOptions options, RuntimeException e) {
        return new StoreConfigurationException(
                "redis.uri '" + options.redactedUri() + "' is not a Redis URI ("
                        + e.getMessage()
                        + "). Use e.g. redis://host:6379, redis://host1:7000,host2:7001 (cluster seeds),"
                        + " rediss://host:6380 or redis-sentinel://host:26379,host2:26379#mymaster.",
                e);
    }

    static ClientOptions clientOptions(RedisStoreOptions options) {
        return fill(ClientOptions.builder(), options).build();
    }

    static ClusterClientOptions clusterOptions(RedisStoreOptions options) {
        ClusterClientOptions.Builder builder = ClusterClientOptions.builder();
        fill(builder, options);
        return builder
                // follow a reshard or a fail-over: MOVED/ASK and lost connections refresh the slot map at once
                .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                        .enableAllAdaptiveRefreshTriggers()
                        .adaptiveRefreshTriggersTimeout(Duration.ofMillis(500))
                        .enablePeriodicRefresh(Duration.ofSeconds(10))
                        .build())
                .maxRedirects(5)
                .build();
    }

    private static <B extends ClientOptions.Builder> B fill(B builder, RedisStoreOptions options) {
        long commandTimeout = options.commandTimeout().toMillis();
        long waitTimeout = options.waitTimeout().toMillis() + commandTimeout;
        TimeoutOptions.TimeoutSource timeouts = new TimeoutOptions.TimeoutSource() {
            @Override
            public long getTimeout(RedisCommand<?, ?, ?> command) {
                return CommandType.WAIT.equals(command.getType()) ? waitTimeout : commandTimeout;
            }

            @Override
            public TimeUnit getTimeUnit() {
                return TimeUnit.MILLISECONDS;
            }
        };
        if (options.usesTls()) {
            builder.sslOptions(options.tls().sslOptions());
        }
        builder
                // RESP2: a wrong password then fails as WRONGPASS on every Redis version; Redis 6.2 closes the
                // connection on a failed RESP3 HELLO, which would read as "unreachable"
                .protocolVersion(ProtocolVersion.RESP2)
                // maintenance notifications are RESP3 pushes, which a RESP2 connection never gets: without this, every
                // connect and reconnect spends a round trip on CLIENT MAINT_NOTIFICATIONS, an error before Redis 8
                .maintNotificationsConfig(MaintNotificationsConfig.disabled())
                .autoReconnect(true)
                // fail fast while disconnected instead of buffering: the intake and the pump retry with backoff
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .timeoutOptions(TimeoutOptions.builder()
                        .timeoutCommands(true)
                        .timeoutSource(timeouts)
                        .build())
                .socketOptions(SocketOptions.builder()
                        .connectTimeout(options.commandTimeout())
                        .keepAlive(true)
                        .build());
        return builder;
    }

    /** For the pub/sub connection: the same codec choice everywhere. */
    static StringCodec pubSubCodec() {
        return StringCodec.UTF8;
    }
}

package io.delaybridge.bridge.store.redis;

import io.delaybridge.bridge.store.StoreConfigurationException;
import io.delaybridge.bridge.store.StoreUnavailableException;
import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.sentinel.api.StatefulRedisSentinelConnection;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds out at start-up what {@code redis.uri} names: a standalone server, a master behind Sentinel, or a Redis
 * Cluster. A {@code redis-sentinel://} URI is Sentinel, and its master name is checked with the sentinels. Otherwise
 * the seeds are asked {@code INFO cluster} in turn; the first that answers decides, unless {@code redis.mode} says
 * it, in which case the answer must agree. A server that is not a cluster node keeps the connection that asked it:
 * it becomes the store's command connection instead of a second connect and handshake.
 */
final class RedisTopologyProbe {

    private static final Logger LOG = LoggerFactory.getLogger(RedisTopologyProbe.class);

    /**
     * What the URI names: the mode, the URIs to connect to, and the Sentinel master's name (or null). On one server
     * found by asking it, also the client and the open connection that asked ({@code client} set up with the store's
     * client options for {@code seeds.get(0)}, {@code connection} with the byte array codec); null otherwise.
     */
    record Found(
            RedisMode mode,
            List<RedisURI> seeds,
            String sentinelMaster,
            RedisClient client,
            StatefulRedisConnection<byte[], byte[]> connection) {

        Found(RedisMode mode, List<RedisURI> seeds, String sentinelMaster) {
            this(mode, seeds, sentinelMaster, null, null);
        }
    }

    /** The answer of a seed to {@code INFO cluster}, with the client and the connection that asked it. */
    private record Asked(boolean cluster, RedisClient client, StatefulRedisConnection<byte[], byte[]> connection) {

        void close() {
            RedisCalls.closeQuietly(connection);
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    private RedisTopologyProbe() {}

    static Found find(RedisStoreOptions options, ClientResources resources) {
        String uri = options.redisUri();
        RedisMode wanted = options.mode();
        if (options.namesSentinels() || wanted == RedisMode.SENTINEL) {
            if (!options.namesSentinels()) {
                throw new StoreConfigurationException(
                        "redis.mode is sentinel but redis.uri '" + options.redactedUri()
                                + "' is not a Sentinel URI. Use redis-sentinel://host:26379,host2:26379#mastername.",
                        null);
            }
            if (wanted != RedisMode.AUTO && wanted != RedisMode.SENTINEL) {
                throw new StoreConfigurationException(
                        "redis.mode is " + wanted.setting() + " but redis.uri '"
                                + options.redactedUri()
                                + "' names sentinels. Set redis.mode to sentinel (or auto), or point"
                                + " redis.uri at the " + wanted.setting() + " Redis.",
                        null);
            }
            RedisURI sentinelUri;
            try {
                sentinelUri = RedisURI.create(uri);
            } catch (RuntimeException e) {
                throw RedisClientOptions.badUri(options, e);
            }
            sentinelUri.setTimeout(options.commandTimeout());
            sentinelUri.setVerifyPeer(options.tls().verify().lettuce());
            for (RedisURI sentinel : sentinelUri.getSentinels()) {
                sentinel.setVerifyPeer(options.tls().verify().lettuce());
            }
            checkSentinelMaster(options, resources, sentinelUri);
            return new Found(RedisMode.SENTINEL, List.of(sentinelUri), sentinelUri.getSentinelMasterId());
        }
        List<RedisURI> seeds = RedisClientOptions.seeds(options);
        if (wanted == RedisMode.STANDALONE) {
            if (seeds.size() > 1) {
                throw new StoreConfigurationException(
                        "redis.mode is standalone but redis.uri '"
                                + options.redactedUri() + "' names " + seeds.size() + " hosts. Name one host, or set"
                                + " redis.mode to cluster (or auto) for cluster seeds.",
                        null);
            }
            return new Found(RedisMode.STANDALONE, seeds, null);
        }
        Asked asked = clusterEnabled(options, resources, seeds);
        boolean cluster = asked.cluster();
        if (cluster || seeds.size() > 1 || wanted == RedisMode.CLUSTER) {
            asked.close(); // a cluster client opens its own connections; the rest is refused below
        }
        if (wanted == RedisMode.CLUSTER && !cluster) {
            throw new StoreConfigurationException(
                    "redis.mode is cluster but the Redis at " + options.redactedUri()
                            + " says cluster_enabled:0. Point redis.uri at a cluster node, or set redis.mode to standalone"
                            + " (or auto).",
                    null);
        }
        if (!cluster && seeds.size() > 1) {
            throw new StoreConfigurationException(
                    "redis.uri '" + options.redactedUri() + "' names " + seeds.size()
                            + " hosts, but they are not a Redis Cluster (cluster_enabled:0). Name one host, or use"
                            + " redis-sentinel://...#name for a master with replicas behind Sentinel.",
                    null);
        }
        if (cluster) {
            return new Found(RedisMode.CLUSTER, seeds, null);
        }
        return new Found(RedisMode.STANDALONE, seeds, null, asked.client(), asked.connection());
    }

    /**
     * Asks the seeds in turn; the first that answers tells whether it is a cluster node. Its connection stays open,
     * for the caller to keep or close.
     */
    private static Asked clusterEnabled(RedisStoreOptions options, ClientResources resources, List<RedisURI> seeds) {
        RuntimeException last = null;
        for (RedisURI seed : seeds) {
            RedisClient probe = new LeanRedisClient(resources, seed);
            probe.setOptions(RedisClientOptions.clientOptions(options));
            StatefulRedisConnection<byte[], byte[]> connection = null;
            try {
                connection = probe.connect(ByteArrayCodec.INSTANCE);
                // as sync() would wait, without building the synchronous API (LeanRedisClient)
                String info = LettuceFutures.awaitOrCancel(
                        connection.async().info("cluster"), seed.getTimeout().toNanos(), TimeUnit.NANOSECONDS);
                return new Asked("1".equals(RedisCalls.parseInfo(info).get("cluster_enabled")), probe, connection);
            } catch (RuntimeException e) {
                LOG.debug("Seed {}:{} did not answer", seed.getHost(), seed.getPort(), e);
                last = e;
                new Asked(false, probe, connection).close();
            }
        }
        throw last;
    }

    /**
     * Asks every sentinel for the master's address: none that answers knowing it means the name is wrong, which
     * Lettuce would otherwise report as a bare connection failure on every retry.
     */
    private static void checkSentinelMaster(RedisStoreOptions options, ClientResources resources, RedisURI uri) {
        String name = uri.getSentinelMasterId();
        if (name == null || name.isEmpty()) {
            throw new StoreConfigurationException(
                    "redis.uri '" + options.redactedUri() + "' names no Sentinel master."
                            + " Add it after '#': redis-sentinel://host:26379,host2:26379#mymaster.",
                    null);
        }
        TreeSet<String> known = new TreeSet<>();
        List<String> unreachable = new ArrayList<>();
        RuntimeException lastFailure = null;
        for (RedisURI sentinel : uri.getSentinels()) {
            RedisClient probe = RedisClient.create(resources);
            probe.setOptions(RedisClientOptions.clientOptions(options));
            String where = sentinel.getHost() + ":" + sentinel.getPort();
            try (StatefulRedisSentinelConnection<String, String> connection = probe.connectSentinel(sentinel)) {
                SocketAddress master = connection.sync().getMasterAddrByName(name);
                if (master != null) {
                    return;
                }
                for (Map<String, String> m : connection.sync().masters()) {
                    known.add(m.get("name"));
                }
            } catch (RuntimeException e) {
                LOG.debug("Sentinel {} did not answer", where, e);
                lastFailure = e;
                unreachable.add(where + " (" + RedisCalls.rootMessage(e) + ")");
            } finally {
                probe.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
        }
        if (unreachable.size() == uri.getSentinels().size()) {
            if (lastFailure != null && RedisTlsErrors.explain(lastFailure, options) != null) {
                throw RedisTlsErrors.explain(lastFailure, options);
            }
            throw new StoreUnavailableException(
                    "No sentinel of redis.uri '" + options.redactedUri() + "' answers: "
                            + String.join(", ", unreachable) + ". Check that the sentinels run there.",
                    null);
        }
        throw new StoreConfigurationException(
                "The sentinels of redis.uri '" + options.redactedUri() + "' know no"
                        + " master named '" + name + "'"
                        + (known.isEmpty() ? " (they monitor none)" : "; they monitor " + String.join(", ", known))
                        + ". Fix the master name after '#' in redis.uri (names are"
                        + " case-sensitive).",
                null);
    }
}

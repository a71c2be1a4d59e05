package io.delaybridge.bridge.store.redis;

import io.delaybridge.bridge.store.StoreConfigurationException;
import io.delaybridge.bridge.store.StoreException;
import io.delaybridge.bridge.store.StoreUnavailableException;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How the store's {@link RedisConnections} open: the client resources (reconnecting within a second), the topology
 * ({@link RedisTopologyProbe}), the client it calls for (a {@link RedisClient} for a standalone server or a master
 * found through Sentinel, a {@link RedisClusterClient} for a cluster) and its three connections, opened side by side;
 * on a cluster, the links to every master as well. A failure closes what opened and is thrown as a store exception
 * that says what to check.
 */
final class ConnectionOpening {

    private static final Logger LOG = LoggerFactory.getLogger(ConnectionOpening.class);

    private ConnectionOpening() {}

    /**
     * Finds out the topology (unless {@link RedisStoreOptions#mode()} names it), connects, and opens the command and
     * pipeline connections; the pub/sub connection for wake-ups is opened beside them ({@link RedisConnections#pubSubConnection()}).
     * The connections open side by side. On one server found by the probe of the auto mode, the probe's connection
     * becomes the command connection.
     *
     * @throws StoreConfigurationException for a URI that is not one, a Sentinel master name the sentinels do not
     *     know, or a mode that does not match the server
     * @throws StoreUnavailableException if Redis cannot be reached
     */
    static RedisConnections open(RedisStoreOptions options) {
        ClientResources resources = DefaultClientResources.builder()
                // reconnect quickly: the intake and the pump wait for Redis, so back off to 1 s at most (default 30 s)
                .reconnectDelay(
                        Delay.exponential(Duration.ofMillis(10), Duration.ofSeconds(1), 2, TimeUnit.MILLISECONDS))
                .build();
        AbstractRedisClient client = null;
        CompletableFuture<? extends StatefulConnection<byte[], byte[]>> command = null;
        CompletableFuture<? extends StatefulConnection<byte[], byte[]>> pipeline = null;
        CompletableFuture<StatefulRedisPubSubConnection<String, String>> pubSub = null;
        try {
            RedisTopologyProbe.Found found = RedisTopologyProbe.find(options, resources);
            if (found.mode() == RedisMode.CLUSTER) {
                RedisClusterClient cluster = RedisClusterClient.create(resources, found.seeds());
                client = cluster;
                cluster.setOptions(RedisClientOptions.clusterOptions(options));
                // the first connection reads the slot map, which the other two then share
                command = CompletableFuture.completedFuture(cluster.connect(ByteArrayCodec.INSTANCE));
                pipeline = cluster.connectAsync(ByteArrayCodec.INSTANCE);
                pubSub = cluster.connectPubSubAsync(RedisClientOptions.pubSubCodec())
                        .thenApply(c -> (StatefulRedisPubSubConnection<String, String>) c);
                connectToMasters(List.of(
                        (StatefulRedisClusterConnection<byte[], byte[]>) connected(command),
                        (StatefulRedisClusterConnection<byte[], byte[]>) connected(pipeline)));
            } else {
                RedisURI uri = found.seeds().get(0);
                RedisClient single = found.client();
                if (single == null) {
                    single = new LeanRedisClient(resources, uri);
                    single.setOptions(RedisClientOptions.clientOptions(options));
                }
                client = single;
                command = found.connection() != null
                        ? CompletableFuture.completedFuture(found.connection())
                        : single.connectAsync(ByteArrayCodec.INSTANCE, uri).toCompletableFuture();
                pipeline = single.connectAsync(ByteArrayCodec.INSTANCE, uri).toCompletableFuture();
                pubSub = single.connectPubSubAsync(RedisClientOptions.pubSubCodec(), uri)
                        .toCompletableFuture();
            }
            StatefulConnection<byte[], byte[]> commandConnection = connected(command);
            StatefulConnection<byte[], byte[]> pipelineConnection = connected(pipeline);
            pipelineConnection.setAutoFlushCommands(false);
            LOG.info("Redis at {}: {}", options.redactedUri(), found.mode().setting());
            return new RedisConnections(
                    options, found, resources, client, commandConnection, pipelineConnection, pubSub);
        } catch (RuntimeException e) {
            RedisCalls.closeWhenOpen(pubSub);
            RedisCalls.closeWhenOpen(pipeline);
            RedisCalls.closeWhenOpen(command);
            RedisCalls.shutdown(client, resources);
            StoreException translated = RedisErrors.translate(e, "connect to Redis at " + options.redactedUri());
            StoreConfigurationException tls =
                    translated instanceof StoreConfigurationException ? null : RedisTlsErrors.explain(e, options);
            if (tls != null) {
                throw tls;
            }
            if (translated instanceof StoreUnavailableException) {
                throw new StoreUnavailableException(
                        "Cannot connect to Redis at " + options.redactedUri() + ": "
                                + RedisCalls.rootMessage(e)
                                + ". Check that Redis runs there and that redis.uri (REDIS_URI) is"
                                + " right" + (options.usesTls() ? "" : "; if that Redis speaks TLS only, use rediss://")
                                + ".",
                        e);
            }
            throw translated;
        }
    }

    /** The connection once open, as {@code connect} gives it: a failure to open is thrown as Lettuce threw it. */
    private static <T> T connected(CompletableFuture<T> connecting) {
        try {
            return connecting.join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException cause ? cause : e;
        }
    }

    /**
     * Opens the links of each connection to every master now, all at once: while a node link is still being opened,
     * a cluster connection rejects the commands routed to it (disconnected behaviour REJECT_COMMANDS), so the first
     * batch would fail.
     */
    private static void connectToMasters(List<StatefulRedisClusterConnection<byte[], byte[]>> connections) {
        List<CompletableFuture<?>> links = new ArrayList<>();
        for (StatefulRedisClusterConnection<byte[], byte[]> connection : connections) {
            for (RedisClusterNode node : connection.getPartitions()) {
                if (node.is(RedisClusterNode.NodeFlag.UPSTREAM) && !node.is(RedisClusterNode.NodeFlag.FAIL)) {
                    links.add(connection.getConnectionAsync(
                            node.getUri().getHost(), node.getUri().getPort()));
                }
            }
        }
        connected(CompletableFuture.allOf(links.toArray(CompletableFuture[]::new)));
    }
}

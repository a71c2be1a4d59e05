package io.delaybridge.bridge.store.redis;

import io.delaybridge.bridge.store.StoreConfigurationException;
import io.delaybridge.bridge.store.StoreException;
import io.delaybridge.bridge.store.StoreUnavailableException;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store's way to Redis, whatever its topology: one client (a {@link RedisClient} for a standalone server or a
 * master found through Sentinel, a {@link RedisClusterClient} for a cluster), and on it
 *
 * <ul>
 *   <li>a command connection shared by every thread ({@link #commands()}); on a cluster, each command goes to the
 *       master that owns its first key's slot, following {@code MOVED}/{@code ASK} and refreshing the slot map;
 *   <li>a pipeline connection with auto-flush off for the intake's write batches ({@link #pipeline()}, {@link
 *       #flushPipeline()});
 *   <li>a pub/sub connection for the wake-ups ({@link #pubSubConnection()}), on which the store's {@link
 *       WakeSubscription} subscribes.
 * </ul>
 *
 * <p>The operations themselves are written once against {@link RedisClusterAsyncCommands}, which the standalone and
 * the cluster command interfaces share. What differs by topology is here: which nodes are masters ({@link
 * #masters()}), where a key lives ({@link #nodeOf}), and how a write batch waits for replicas ({@link
 * #waitsInPipeline()}, {@link #waitOnMasterOf}).
 */
final class RedisConnections implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(RedisConnections.class);

    /** A master node and a connection to it alone (not routed), for start-up checks and WAIT. */
    record Node(String address, RedisClusterAsyncCommands<byte[], byte[]> commands) {}

    private final RedisStoreOptions options;
    private final RedisMode mode;
    private final ClientResources resources;
    private final AbstractRedisClient client;
    private final StatefulConnection<byte[], byte[]> commandConnection;
    private final StatefulConnection<byte[], byte[]> pipelineConnection;
    private final CompletableFuture<StatefulRedisPubSubConnection<String, String>> pubSubConnection;
    private final String sentinelMaster;

    private RedisConnections(
            RedisStoreOptions options,
            RedisTopologyProbe.Found found,
            ClientResources resources,
            AbstractRedisClient client,
            StatefulConnection<byte[], byte[]> commandConnection,
            StatefulConnection<byte[], byte[]> pipelineConnection,
            CompletableFuture<StatefulRedisPubSubConnection<String, String>> pubSubConnection) {
        this.options = options;
        this.mode = found.mode();
        this.resources = resources;
        this.client = client;
        this.commandConnection = commandConnection;
        this.pipelineConnection = pipelineConnection;
        this.pubSubConnection = pubSubConnection;
        this.sentinelMaster = found.sentinelMaster();
    }

    /**
     * Finds out the topology (unless {@link RedisStoreOptions#mode()} names it), connects, and opens the command and
     * pipeline connections; the pub/sub connection for wake-ups is opened beside them ({@link #pubSubConnection()}).
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

    /**
     * The pub/sub connection for wake-ups, opened with the others: {@link WakeSubscription} subscribes on it once the
     * channels are known. A cluster pub/sub connection on a cluster.
     */
    CompletableFuture<StatefulRedisPubSubConnection<String, String>> pubSubConnection() {
        return pubSubConnection;
    }

    /** The topology in use: standalone, Sentinel or cluster (never auto). */
    RedisMode mode() {
        return mode;
    }

    boolean isCluster() {
        return mode == RedisMode.CLUSTER;
    }

    RedisStoreOptions options() {
        return options;
    }

    AbstractRedisClient client() {
        return client;
    }

    ClientResources resources() {
        return resources;
    }

    /** The shared command connection's commands; routed by key on a cluster. */
    @SuppressWarnings("unchecked")
    RedisClusterAsyncCommands<byte[], byte[]> commands() {
        return commandsOf(commandConnection);
    }

    /** The write pipeline's commands: queued until {@link #flushPipeline()}. */
    RedisClusterAsyncCommands<byte[], byte[]> pipeline() {
        return commandsOf(pipelineConnection);
    }

    void flushPipeline() {
        pipelineConnection.flushCommands();
    }

    /**
     * Whether a {@code WAIT} can travel in the write pipeline behind the batch's scripts: yes on one server (the WAIT
     * covers every earlier write of the connection). On a cluster the scripts go to several masters, and WAIT only
     * counts the writes of the node connection it runs on, so it is sent to each master that took a write, on the
     * pipeline's own connection to that node ({@link #waitOnMasterOf}), after the scripts answered.
     */
    boolean waitsInPipeline() {
        return !isCluster();
    }

    /**
     * Cluster: a {@code WAIT} on the pipeline's own link to the master that owns {@code key} now (the link its writes
     * went through), flushed at once. Asynchronous all the way: this runs on a Lettuce I/O thread, which must not
     * block while a link to a new master opens.
     */
    CompletableFuture<Long> waitOnMasterOf(byte[] key, int replicas, long timeoutMillis) {
        RedisURI uri = masterOf(key).getUri();
        return ((StatefulRedisClusterConnection<byte[], byte[]>) pipelineConnection)
                .getConnectionAsync(uri.getHost(), uri.getPort())
                .thenCompose(link -> {
                    CompletableFuture<Long> wait = link.async()
                            .waitForReplication(replicas, timeoutMillis)
                            .toCompletableFuture();
                    link.flushCommands();
                    return wait;
                });
    }

    /** The address of the node that holds {@code key}: a cluster master, the Sentinel master, or the server. */
    String nodeOf(byte[] key) {
        if (isCluster()) {
            RedisURI uri = masterOf(key).getUri();
            return uri.getHost() + ":" + uri.getPort();
        }
        if (mode == RedisMode.SENTINEL) {
            return "the master '" + sentinelMaster + "' of the sentinels";
        }
        return options.redactedUri();
    }

    /** The distinct masters ({@code host:port}) that own these keys or shard channels now. */
    java.util.Set<String> mastersOf(List<String> keys) {
        java.util.Set<String> masters = new java.util.TreeSet<>();
        for (String key : keys) {
            masters.add(nodeOf(RedisCalls.bytes(key)));
        }
        return masters;
    }

    /** Every master: on a cluster one connection to each (not routed); otherwise the command connection. */
    List<Node> masters() {
        if (!isCluster()) {
            return List.of(new Node(
                    mode == RedisMode.SENTINEL
                            ? "the master '" + sentinelMaster + "' of the" + " sentinels at " + options.redactedUri()
                            : options.redactedUri(),
                    commands()));
        }
        StatefulRedisClusterConnection<byte[], byte[]> cluster =
                (StatefulRedisClusterConnection<byte[], byte[]>) commandConnection;
        List<Node> masters = new ArrayList<>();
        for (RedisClusterNode node : cluster.getPartitions()) {
            if (node.is(RedisClusterNode.NodeFlag.UPSTREAM)
                    && !node.is(RedisClusterNode.NodeFlag.FAIL)
                    && !node.getSlots().isEmpty()) {
                RedisURI uri = node.getUri();
                masters.add(new Node(
                        uri.getHost() + ":" + uri.getPort(),
                        cluster.getConnection(uri.getHost(), uri.getPort()).async()));
            }
        }
        return masters;
    }

    /** On a cluster: per master serving slots, its address and how many replicas (not failed) it has. */
    Map<String, Integer> replicasPerMaster() {
        Partitions partitions = ((StatefulRedisClusterConnection<byte[], byte[]>) commandConnection).getPartitions();
        Map<String, Integer> replicas = new TreeMap<>();
        for (RedisClusterNode master : partitions) {
            if (!master.is(RedisClusterNode.NodeFlag.UPSTREAM)
                    || master.getSlots().isEmpty()) {
                continue;
            }
            int count = 0;
            for (RedisClusterNode node : partitions) {
                if (master.getNodeId().equals(node.getSlaveOf()) && !node.is(RedisClusterNode.NodeFlag.FAIL)) {
                    count++;
                }
            }
            replicas.put(master.getUri().getHost() + ":" + master.getUri().getPort(), count);
        }
        return replicas;
    }

    private RedisClusterNode masterOf(byte[] key) {
        StatefulRedisClusterConnection<byte[], byte[]> cluster =
                (StatefulRedisClusterConnection<byte[], byte[]>) commandConnection;
        int slot = SlotHash.getSlot(key);
        RedisClusterNode master = cluster.getPartitions().getMasterBySlot(slot);
        if (master == null) {
            throw new StoreUnavailableException(
                    "No master of the Redis Cluster at " + options.redactedUri() + " serves slot " + slot
                            + " now (fail-over under way?). Retry with backoff.",
                    null);
        }
        return master;
    }

    /** A backstop above Lettuce's own command timeout, which fails a future first. */
    long awaitMillis() {
        return options.commandTimeout().toMillis() * 2 + 1_000;
    }

    @Override
    public void close() {
        RedisCalls.closeWhenOpen(pubSubConnection);
        RedisCalls.closeQuietly(pipelineConnection);
        RedisCalls.closeQuietly(commandConnection);
        RedisCalls.shutdown(client, resources);
    }

    @SuppressWarnings("unchecked")
    private static RedisClusterAsyncCommands<byte[], byte[]> commandsOf(StatefulConnection<byte[], byte[]> c) {
        if (c instanceof StatefulRedisClusterConnection<byte[], byte[]> cluster) {
            return cluster.async();
        }
        return ((StatefulRedisConnection<byte[], byte[]>) c).async();
    }
}

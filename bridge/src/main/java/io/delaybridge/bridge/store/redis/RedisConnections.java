package io.delaybridge.bridge.store.redis;

import io.delaybridge.bridge.store.StoreUnavailableException;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;

/**
 * The store's way to Redis, whatever its topology: one client (a {@code RedisClient} for a standalone server or a
 * master found through Sentinel, a {@code RedisClusterClient} for a cluster), and on it
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
 * #waitsInPipeline()}, {@link #waitOnMasterOf}). {@link ConnectionOpening} opens them.
 */
final class RedisConnections implements AutoCloseable {

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

    /** The connections {@link ConnectionOpening#open} opened, on {@code client}. */
    RedisConnections(
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
    Set<String> mastersOf(List<String> keys) {
        Set<String> masters = new TreeSet<>();
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

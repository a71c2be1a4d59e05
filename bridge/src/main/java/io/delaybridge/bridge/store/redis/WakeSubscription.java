package io.delaybridge.bridge.store.redis;

import io.delaybridge.bridge.store.WakeListener;
import io.lettuce.core.cluster.event.ClusterTopologyChangedEvent;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.pubsub.RedisClusterPubSubAdapter;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;

/**
 * The pub/sub connection the pump's wake-ups arrive on, subscribed to every shard's wake channel.
 *
 * <ul>
 *   <li>One server or Sentinel: {@code SUBSCRIBE} to all channels on one connection (re-subscribed by Lettuce after a
 *       reconnect, also to a new Sentinel master).
 *   <li>Cluster, Redis 7 or later on every master: sharded pub/sub. Each channel carries its shard's hash tag, so
 *       {@code SSUBSCRIBE} goes to the master that owns the shard and the scripts' {@code SPUBLISH} stays on that
 *       node instead of travelling to every node of the cluster.
 *   <li>Cluster with an older master: classic {@code SUBSCRIBE} on one node; the cluster bus carries every
 *       {@code PUBLISH} to all nodes.
 * </ul>
 *
 * Messages are handed to the store's {@link WakeListener}s on a Lettuce I/O thread.
 */
final class WakeSubscription implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(WakeSubscription.class);
    private static final int RESUBSCRIBE_ATTEMPTS = 10;

    private final StatefulRedisPubSubConnection<String, String> connection;
    private volatile Disposable topologyWatch;

    private WakeSubscription(StatefulRedisPubSubConnection<String, String> connection) {
        this.connection = connection;
    }

    /**
     * After a fail-over or a reshard a shard channel's slot has a new master, which knows nothing of the subscription
     * (Lettuce re-subscribes a node link only when that same node comes back): subscribe again on every topology
     * change; SSUBSCRIBE goes to the owner now, and one already subscribed there is a no-op.
     */
    private void resubscribeOnTopologyChange(
            RedisConnections connections,
            StatefulRedisClusterPubSubConnection<String, String> pubSub,
            List<String> channels) {
        topologyWatch = connections
                .resources()
                .eventBus()
                .get()
                .filter(event -> event instanceof ClusterTopologyChangedEvent)
                .subscribe(event -> channels.forEach(channel -> resubscribe(connections, pubSub, channel, 1)));
    }

    /** Opens the link to the channel's master first (a link being opened rejects commands), then SSUBSCRIBE. */
    private void resubscribe(
            RedisConnections connections,
            StatefulRedisClusterPubSubConnection<String, String> pubSub,
            String channel,
            int attempt) {
        if (!pubSub.isOpen()) {
            return;
        }
        CompletableFuture<Void> done;
        try {
            String address = connections.nodeOf(RedisCalls.bytes(channel));
            int colon = address.lastIndexOf(':');
            done = pubSub.getConnectionAsync(
                            address.substring(0, colon), Integer.parseInt(address.substring(colon + 1)))
                    .thenCompose(link -> pubSub.async().ssubscribe(channel).toCompletableFuture());
        } catch (RuntimeException e) {
            done = CompletableFuture.failedFuture(e);
        }
        done.whenComplete((ok, e) -> {
            if (e == null) {
                return;
            }
            if (attempt < RESUBSCRIBE_ATTEMPTS) {
                CompletableFuture.delayedExecutor(1, TimeUnit.SECONDS)
                        .execute(() -> resubscribe(connections, pubSub, channel, attempt + 1));
            } else {
                LOG.warn(
                        "SSUBSCRIBE {} after a topology change failed {} times ({}); until the next change the"
                                + " shard's pump misses wake-ups and claims at its next known due time",
                        channel,
                        attempt,
                        e.toString());
            }
        });
    }

    /** Subscribes to every shard's wake channel; a message goes to each of {@code listeners} (read at each one). */
    static WakeSubscription open(
            RedisConnections connections, RedisKeys keys, boolean sharded, List<WakeListener> listeners) {
        List<String> channels = new ArrayList<>(keys.shardCount());
        for (int shard = 0; shard < keys.shardCount(); shard++) {
            channels.add(keys.shard(shard).wakeChannel());
        }
        return open(connections, channels, sharded, (channel, message) -> dispatch(keys, listeners, channel, message));
    }

    private static void dispatch(RedisKeys keys, List<WakeListener> listeners, String channel, String message) {
        int shard = keys.shardOfWakeChannel(channel);
        if (shard < 0) {
            return;
        }
        long dueAt;
        try {
            dueAt = parseMillis(message);
        } catch (NumberFormatException e) {
            LOG.warn("Ignoring wake-up '{}' on {}: not a time", message, channel);
            return;
        }
        for (WakeListener listener : listeners) {
            try {
                listener.wake(shard, dueAt);
            } catch (RuntimeException e) {
                LOG.warn("Wake listener failed for shard {}", shard, e);
            }
        }
    }

    private static long parseMillis(String s) {
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            return (long) Double.parseDouble(s); // Lua may format large numbers as 1.7e+12
        }
    }

    static WakeSubscription open(
            RedisConnections connections,
            List<String> channels,
            boolean sharded,
            BiConsumer<String, String> onMessage) {
        String operation = (sharded ? "SSUBSCRIBE" : "SUBSCRIBE") + " to " + channels.size() + " wake channels";
        StatefulRedisPubSubConnection<String, String> connection = RedisCalls.await(
                connections.pubSubConnection(),
                "open the pub/sub connection for wake-ups at "
                        + connections.options().redactedUri(),
                connections.awaitMillis());
        if (connection instanceof StatefulRedisClusterPubSubConnection<String, String> pubSub) {
            WakeSubscription subscription = new WakeSubscription(pubSub);
            try {
                pubSub.addListener(new RedisClusterPubSubAdapter<>() {
                    @Override
                    public void message(RedisClusterNode node, String channel, String message) {
                        onMessage.accept(channel, message);
                    }

                    @Override
                    public void smessage(RedisClusterNode node, String channel, String message) {
                        onMessage.accept(channel, message);
                    }
                });
                if (sharded) {
                    pubSub.setNodeMessagePropagation(true);
                    // connect to each master first: while a node connection is still being opened, the cluster
                    // connection rejects commands routed to it (disconnected behaviour REJECT_COMMANDS)
                    List<CompletableFuture<?>> links = new ArrayList<>();
                    for (String address : connections.mastersOf(channels)) {
                        int colon = address.lastIndexOf(':');
                        links.add(pubSub.getConnectionAsync(
                                address.substring(0, colon), Integer.parseInt(address.substring(colon + 1))));
                    }
                    RedisCalls.await(
                            CompletableFuture.allOf(links.toArray(CompletableFuture[]::new)),
                            "connect the pub/sub connection to every master",
                            connections.awaitMillis());
                    // one command per channel: the channels hash to different slots, so to different masters
                    List<CompletableFuture<Void>> subscribed = new ArrayList<>();
                    for (String channel : channels) {
                        subscribed.add(pubSub.async().ssubscribe(channel).toCompletableFuture());
                    }
                    RedisCalls.await(
                            CompletableFuture.allOf(subscribed.toArray(CompletableFuture[]::new)),
                            operation,
                            connections.awaitMillis());
                    subscription.resubscribeOnTopologyChange(connections, pubSub, channels);
                } else {
                    RedisCalls.await(
                            pubSub.async().subscribe(channels.toArray(String[]::new)),
                            operation,
                            connections.awaitMillis());
                }
                return subscription;
            } catch (RuntimeException e) {
                subscription.close();
                throw e;
            }
        }
        WakeSubscription subscription = new WakeSubscription(connection);
        try {
            connection.addListener(new RedisPubSubAdapter<>() {
                @Override
                public void message(String channel, String message) {
                    onMessage.accept(channel, message);
                }
            });
            RedisCalls.await(
                    connection.async().subscribe(channels.toArray(String[]::new)),
                    operation,
                    connections.awaitMillis());
            return subscription;
        } catch (RuntimeException e) {
            subscription.close();
            throw e;
        }
    }

    @Override
    public void close() {
        Disposable watch = topologyWatch;
        if (watch != null) {
            watch.dispose();
        }
        RedisCalls.closeQuietly(connection);
    }
}

package io.delaybridge.bridge.store.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.pubsub.RedisClusterPubSubAdapter;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;

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
 * Messages are handed to {@code onMessage(channel, message)} on a Lettuce I/O thread.
 */
final class WakeSubscription implements AutoCloseable {

    private final StatefulRedisPubSubConnection<String, String> connection;

    private WakeSubscription(StatefulRedisPubSubConnection<String, String> connection) {
        this.connection = connection;
    }

    static WakeSubscription open(RedisConnections connections, List<String> channels, boolean sharded,
            BiConsumer<String, String> onMessage) {
        String operation = (sharded ? "SSUBSCRIBE" : "SUBSCRIBE") + " to " + channels.size() + " wake channels";
        if (connections.client() instanceof RedisClusterClient cluster) {
            StatefulRedisClusterPubSubConnection<String, String> pubSub =
                    cluster.connectPubSub(RedisConnections.pubSubCodec());
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
                    for (String address : connections.mastersOf(channels)) {
                        int colon = address.lastIndexOf(':');
                        pubSub.getConnection(address.substring(0, colon),
                                Integer.parseInt(address.substring(colon + 1)));
                    }
                    // one command per channel: the channels hash to different slots, so to different masters
                    List<CompletableFuture<Void>> subscribed = new ArrayList<>();
                    for (String channel : channels) {
                        subscribed.add(pubSub.async().ssubscribe(channel).toCompletableFuture());
                    }
                    RedisCalls.await(CompletableFuture.allOf(subscribed.toArray(CompletableFuture[]::new)), operation,
                            connections.awaitMillis());
                } else {
                    RedisCalls.await(pubSub.async().subscribe(channels.toArray(String[]::new)), operation,
                            connections.awaitMillis());
                }
                return subscription;
            } catch (RuntimeException e) {
                subscription.close();
                throw e;
            }
        }
        StatefulRedisPubSubConnection<String, String> pubSub =
                ((RedisClient) connections.client()).connectPubSub(RedisConnections.pubSubCodec());
        WakeSubscription subscription = new WakeSubscription(pubSub);
        try {
            pubSub.addListener(new RedisPubSubAdapter<>() {
                @Override
                public void message(String channel, String message) {
                    onMessage.accept(channel, message);
                }
            });
            RedisCalls.await(pubSub.async().subscribe(channels.toArray(String[]::new)), operation,
                    connections.awaitMillis());
            return subscription;
        } catch (RuntimeException e) {
            subscription.close();
            throw e;
        }
    }

    @Override
    public void close() {
        RedisConnections.closeQuietly(connection);
    }
}

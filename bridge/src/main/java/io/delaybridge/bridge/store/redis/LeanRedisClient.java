package io.delaybridge.bridge.store.redis;

import io.lettuce.core.RedisChannelWriter;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.StatefulRedisConnectionImpl;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.protocol.PushHandler;
import io.lettuce.core.pubsub.PubSubEndpoint;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnectionImpl;
import io.lettuce.core.pubsub.api.sync.RedisPubSubCommands;
import io.lettuce.core.resource.ClientResources;
import java.time.Duration;

/**
 * A {@link RedisClient} (one server, or a master behind Sentinel) whose connections build their synchronous API only
 * when {@code sync()} is first called. Lettuce builds it with every connection: a dynamic proxy over the several
 * hundred commands of {@link RedisCommands}, whose class the JVM generates, loads and links at the first connection
 * of each kind (command, pub/sub). The class-data-sharing archive cannot hold such classes, so that took hundreds of
 * milliseconds of every start. The store uses the asynchronous API only; {@code sync()} still works.
 *
 * <p>Built on the factory methods Lettuce offers for extension ({@code newStatefulRedisConnection}, {@code
 * newStatefulRedisPubSubConnection}, {@code newRedisSyncCommandsImpl}), with Lettuce's own arguments.
 */
final class LeanRedisClient extends RedisClient {

    LeanRedisClient(ClientResources resources, RedisURI uri) {
        super(resources, uri);
    }

    @Override
    protected <K, V> StatefulRedisConnectionImpl<K, V> newStatefulRedisConnection(
            RedisChannelWriter writer, PushHandler pushHandler, RedisCodec<K, V> codec, Duration timeout) {
        return new StatefulRedisConnectionImpl<>(
                writer, pushHandler, codec, timeout, getOptions().getJsonParser()) {

            private volatile RedisCommands<K, V> lazySync;

            @Override
            protected RedisCommands<K, V> newRedisSyncCommandsImpl() {
                return null; // called by the constructor; sync() builds it on first use
            }

            @Override
            public RedisCommands<K, V> sync() {
                RedisCommands<K, V> commands = lazySync;
                if (commands == null) {
                    commands = super.newRedisSyncCommandsImpl();
                    lazySync = commands;
                }
                return commands;
            }
        };
    }

    @Override
    protected <K, V> StatefulRedisPubSubConnectionImpl<K, V> newStatefulRedisPubSubConnection(
            PubSubEndpoint<K, V> endpoint, RedisChannelWriter writer, RedisCodec<K, V> codec, Duration timeout) {
        return new StatefulRedisPubSubConnectionImpl<>(endpoint, writer, codec, timeout) {

            private volatile RedisPubSubCommands<K, V> lazySync;

            @Override
            protected RedisPubSubCommands<K, V> newRedisSyncCommandsImpl() {
                return null; // called by the constructor; sync() builds it on first use
            }

            @Override
            public RedisPubSubCommands<K, V> sync() {
                RedisPubSubCommands<K, V> commands = lazySync;
                if (commands == null) {
                    commands = super.newRedisSyncCommandsImpl();
                    lazySync = commands;
                }
                return commands;
            }
        };
    }
}

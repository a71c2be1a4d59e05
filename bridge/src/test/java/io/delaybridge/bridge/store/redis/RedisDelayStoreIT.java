package io.delaybridge.bridge.store.redis;

import io.delaybridge.bridge.store.DelayStore;
import io.delaybridge.bridge.store.DelayStoreContractIT;
import io.delaybridge.bridge.store.LanedEnvelopes;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.TestServers;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The store contract on a real Redis: the run's shared server ({@code REDIS_URI}, a container, or a redis-server child
 * process). Each test gets its own key prefix, so its shards start empty.
 */
@ExtendWith(RealServersExtension.class)
class RedisDelayStoreIT extends DelayStoreContractIT implements LanedEnvelopes {

    private final TestServers servers;

    RedisDelayStoreIT(TestServers servers) {
        this.servers = servers;
    }

    @Override
    protected DelayStore newStore() {
        return RedisDelayStore.connect(
                RedisStoreOptions.of(servers.redisUri(), TOPIC, SHARDS).withKeyPrefix(servers.unique("contract")));
    }
}

package io.delaybridge.bridge.store.redis;

import static io.delaybridge.bridge.store.redis.RedisCalls.bytes;

import io.delaybridge.bridge.store.ShardRouter;
import io.delaybridge.bridge.time.Time;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a {@link RedisDelayStore} opens: connect (finding out the topology), check every master, load the scripts on
 * every node, initialise the store on first use (shard count, incarnation), prepare the shards; then the store
 * subscribes to the wake channels. A failure on the way closes the connections.
 */
final class StoreOpening {

    private static final Logger LOG = LoggerFactory.getLogger(RedisDelayStore.class);

    private StoreOpening() {}

    static RedisDelayStore open(RedisStoreOptions options, Time time, IntSupplier shardCount) {
        RedisConnections c = ConnectionOpening.open(options);
        try {
            ScriptRunner scripts = new ScriptRunner();
            // the scripts travel ahead of the checks' questions; a failed check is still what stops the start
            CompletableFuture<Void> loaded = scripts.loadAll(c.commands());
            ServerChecks.Facts facts = ServerChecks.check(c);
            RedisCalls.await(loaded, "SCRIPT LOAD at " + options.redactedUri(), c.awaitMillis());
            StoreMeta.Meta meta = StoreMeta.initialise(c, scripts, time.clock(), shardCount.getAsInt());
            RedisKeys keys = new RedisKeys(options.keyPrefix(), options.intakeTopic(), meta.shards());
            StoreMeta.prepareShards(c, keys, meta);
            StoreAccess access = new StoreAccess(
                    c,
                    scripts,
                    keys,
                    new ShardRouter(options.intakeTopic(), keys.shardCount()),
                    meta.incarnation(),
                    bytes(facts.publishCommand()));
            RedisDelayStore store =
                    new RedisDelayStore(access, StoreAssembly.wire(access, facts, time, options.laneWeights()));
            LOG.info(
                    "Redis store at {} ({}) ready: intake topic {}, {} shards, key prefix {}, incarnation {},"
                            + " wake-ups by {}",
                    options.redactedUri(),
                    c.mode().setting(),
                    options.intakeTopic(),
                    meta.shards(),
                    options.keyPrefix(),
                    meta.incarnation(),
                    facts.publishCommand());
            return store;
        } catch (RuntimeException e) {
            c.close();
            throw e;
        }
    }
}

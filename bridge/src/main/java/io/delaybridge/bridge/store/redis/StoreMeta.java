package io.delaybridge.bridge.store.redis;

import static io.delaybridge.bridge.store.redis.RedisCalls.bytes;
import static io.delaybridge.bridge.store.redis.RedisCalls.string;

import io.delaybridge.bridge.store.StoreConfigurationException;
import io.delaybridge.bridge.store.StoreDataLostException;
import io.delaybridge.bridge.store.redis.ScriptRunner.Script;
import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.SetArgs;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store's start-up markers: the meta hash (shard count, incarnation) and the incarnation's copy in every shard.
 *
 * <p>On a cluster the meta hash lives on one master while the shards spread over all of them: the per-shard copies are
 * what tell that one node lost its data, and the messages name that node.
 */
final class StoreMeta {

    private static final Logger LOG = LoggerFactory.getLogger(StoreMeta.class);

    /** The meta hash as read at start-up. */
    record Meta(int shards, String incarnation, boolean initialised) {}

    private StoreMeta() {}

    /**
     * The layout version of the keys this bridge writes, kept in the meta hash's {@code layout} field: 1, the due set,
     * payload hash and in-flight set per shard (docs/redis-store.md, "Keys"); 2 adds the far tier's keys (hour strings
     * and their index, far versions, far drops); 3 keeps a shard's due messages in one lane per target topic and an
     * index of the lanes (lanes.lua). A store created before the field existed is layout 1. Each layout
     * reads the ones before it, so this bridge raises an older store's field to its own on start-up; a bridge that
     * finds a newer layout refuses to start, so that a rollback never misses records kept in keys it does not know.
     */
    static final int LAYOUT = 3;

    /** Refuses a store whose layout is newer than {@link #LAYOUT} (or unreadable). */
    static void checkLayout(String metaKey, String stored) {
        int layout;
        try {
            layout = Integer.parseInt(String.valueOf(stored));
        } catch (NumberFormatException e) {
            throw new StoreConfigurationException(
                    "The meta hash " + metaKey + " holds layout '" + stored
                            + "', not a number: another application uses this key prefix? Choose another keyPrefix.",
                    e);
        }
        if (layout > LAYOUT) {
            throw new StoreConfigurationException("The store " + metaKey + " has layout " + layout + ", written by a "
                    + "newer delay-bridge; this one reads layouts up to " + LAYOUT + " and would miss what is kept in "
                    + "the newer keys. Run the newer version (a rollback needs the store drained first: see "
                    + "docs/redis-store.md, \"Layout versions\").");
        }
    }

    /** Creates the meta hash on first start (shard count, a fresh incarnation) and reads it. */
    static Meta initialise(RedisConnections c, ScriptRunner scripts, Clock clock, int shardCount) {
        RedisStoreOptions options = c.options();
        byte[] metaKey = RedisKeys.metaKey(options.keyPrefix(), options.intakeTopic());
        List<Object> reply = RedisCalls.await(
                scripts.run(
                        c.commands(),
                        Script.INIT,
                        Script.INIT.signature().keysGiven(metaKey),
                        Script.INIT.argv(
                                bytes(Integer.toString(shardCount)),
                                bytes(UUID.randomUUID().toString()),
                                bytes(clock.millis()),
                                bytes(Integer.toString(LAYOUT)))),
                "initialise store meta " + string(metaKey) + " on " + c.nodeOf(metaKey),
                c.awaitMillis());
        checkLayout(string(metaKey), reply.size() > 3 && reply.get(3) instanceof byte[] b ? string(b) : null);
        int shards;
        try {
            shards = Integer.parseInt(string((byte[]) reply.get(0)));
        } catch (RuntimeException e) {
            throw new StoreConfigurationException(
                    "The meta hash " + string(metaKey) + " holds shards '"
                            + (reply.get(0) instanceof byte[] b ? string(b) : reply.get(0)) + "', not a number: another"
                            + " application uses this key prefix? Choose another keyPrefix.",
                    e);
        }
        String incarnation = string((byte[]) reply.get(1));
        boolean initialised = reply.size() > 2 && reply.get(2) != null;
        if (shards != shardCount) {
            LOG.warn(
                    "The store {} was created with {} shards; the configured shard count (intake partitions) is {}."
                            + " Keeping {}: default ids of intake partitions >= {} are hashed over the shards, and every"
                            + " shard must be pumped by some instance. To change the count, drain the store and delete {}.",
                    string(metaKey),
                    shards,
                    shardCount,
                    shards,
                    shards,
                    string(metaKey));
        }
        return new Meta(shards, incarnation, initialised);
    }

    /**
     * On first start, copies the incarnation into every shard, then marks the store initialised. On every start, checks
     * that every shard holds it: a shard without it lost its data.
     */
    static void prepareShards(RedisConnections c, RedisKeys keys, Meta meta) {
        RedisClusterAsyncCommands<byte[], byte[]> commands = c.commands();
        byte[] incarnation = bytes(meta.incarnation());
        if (!meta.initialised()) {
            List<RedisFuture<String>> sets = new ArrayList<>();
            for (int shard = 0; shard < keys.shardCount(); shard++) {
                sets.add(commands.set(keys.shard(shard).incarnation(), incarnation, SetArgs.Builder.nx()));
            }
            for (int shard = 0; shard < keys.shardCount(); shard++) {
                RedisCalls.await(
                        sets.get(shard),
                        "initialise the incarnation of shard " + shard + " on "
                                + c.nodeOf(keys.shard(shard).incarnation()),
                        c.awaitMillis());
            }
            RedisCalls.await(
                    commands.hset(keys.meta(), bytes("initialised"), bytes("1")),
                    "mark store initialised",
                    c.awaitMillis());
        }
        String problem = shardProblem(c, keys, incarnation);
        if (problem != null) {
            throw new StoreDataLostException(problem + ", but the store's meta hash says '" + meta.incarnation()
                    + "': that node lost its data, so the shard's pending messages may be gone. Decide whether to"
                    + " re-read the intake topic from an earlier offset; to accept the loss, delete "
                    + string(keys.meta()) + " and restart.");
        }
    }

    /**
     * The first shard whose incarnation copy differs from {@code incarnation}, described with the node it lives on
     * ({@code "shard 3 on 127.0.0.1:7001 holds incarnation (none)"}), or null if every shard holds it.
     */
    static String shardProblem(RedisConnections c, RedisKeys keys, byte[] incarnation) {
        List<RedisFuture<byte[]>> gets = new ArrayList<>();
        for (int shard = 0; shard < keys.shardCount(); shard++) {
            gets.add(c.commands().get(keys.shard(shard).incarnation()));
        }
        for (int shard = 0; shard < keys.shardCount(); shard++) {
            byte[] key = keys.shard(shard).incarnation();
            byte[] found = RedisCalls.await(
                    gets.get(shard),
                    "read the incarnation of shard " + shard + " on " + c.nodeOf(key),
                    c.awaitMillis());
            if (!Arrays.equals(found, incarnation)) {
                return "Shard " + shard + " (key " + string(key) + " on Redis " + c.nodeOf(key) + ") holds incarnation "
                        + (found == null ? "(none)" : "'" + string(found) + "'");
            }
        }
        return null;
    }

    /** The incarnation the meta hash holds now; empty if the meta hash is gone. */
    static Optional<String> current(RedisConnections c, RedisKeys keys) {
        List<KeyValue<byte[], byte[]>> values = RedisCalls.await(
                c.commands().hmget(keys.meta(), bytes("incarnation")),
                "read incarnation on " + c.nodeOf(keys.meta()),
                c.awaitMillis());
        if (values.isEmpty() || !values.get(0).hasValue()) {
            return Optional.empty();
        }
        return Optional.of(string(values.get(0).getValue()));
    }
}

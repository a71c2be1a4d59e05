package io.delaybridge.bridge.store.redis;

import io.delaybridge.bridge.store.StoreConfigurationException;
import io.delaybridge.bridge.store.redis.RedisConnections.Node;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Start-up checks of every master the store writes to (one server, the Sentinel master, or each master of a cluster):
 * the version, {@code maxmemory-policy noeviction}, persistence, and the replicas {@code waitReplicas} counts on.
 * A setting that breaks the store's guarantees stops start-up naming the node, the setting and the fix; weaker
 * persistence is logged as a warning.
 */
final class ServerChecks {

    private static final Logger LOG = LoggerFactory.getLogger(ServerChecks.class);
    static final int MIN_REDIS_MAJOR = 5;
    /** The first Redis with sharded pub/sub (SPUBLISH, SSUBSCRIBE). */
    static final int SHARDED_PUBSUB_MAJOR = 7;

    /** What the checks learnt: whether every master has sharded pub/sub. */
    record Facts(int lowestMajor, boolean shardedPubSub) {
        /** The command the scripts publish wake-ups with. */
        String publishCommand() {
            return shardedPubSub ? "SPUBLISH" : "PUBLISH";
        }
    }

    private ServerChecks() {}

    static Facts check(RedisConnections connections) {
        RedisStoreOptions options = connections.options();
        List<Node> masters = connections.masters();
        if (masters.isEmpty()) {
            throw new StoreConfigurationException(
                    "The Redis Cluster at " + options.redactedUri() + " has no master"
                            + " serving slots. Create the cluster (redis-cli --cluster create ...) before starting the bridge.",
                    null);
        }
        // every question to every master at once; the answers are then checked in turn, as if asked one by one
        List<Answers> answers = masters.stream().map(ServerChecks::ask).toList();
        int lowest = Integer.MAX_VALUE;
        for (int i = 0; i < masters.size(); i++) {
            lowest = Math.min(lowest, checkNode(connections, masters.get(i), answers.get(i)));
        }
        if (connections.isCluster()) {
            checkClusterReplicas(connections, masters.size());
        }
        boolean sharded = connections.isCluster() && lowest >= SHARDED_PUBSUB_MAJOR;
        return new Facts(lowest, sharded);
    }

    /** The replies of one master to the checks' questions, asked all at once ({@link #ask}). */
    private record Answers(
            RedisFuture<String> server,
            RedisFuture<String> memory,
            RedisFuture<String> replication,
            RedisFuture<String> persistence,
            RedisFuture<Map<String, String>> appendfsync) {}

    private static Answers ask(Node node) {
        RedisClusterAsyncCommands<byte[], byte[]> commands = node.commands();
        return new Answers(
                commands.info("server"),
                commands.info("memory"),
                commands.info("replication"),
                commands.info("persistence"),
                commands.configGet("appendfsync"));
    }

    /** Checks one master; returns its major version. */
    private static int checkNode(RedisConnections connections, Node node, Answers answers) {
        RedisStoreOptions options = connections.options();
        RedisClusterAsyncCommands<byte[], byte[]> commands = node.commands();
        long awaitMillis = connections.awaitMillis();
        String where = "Redis at " + node.address();
        Map<String, String> server = info(answers.server(), "server", node, awaitMillis);
        String version = server.getOrDefault("redis_version", "");
        int major = RedisCalls.majorVersion(version);
        if (major >= 0 && major < MIN_REDIS_MAJOR) {
            throw new StoreConfigurationException(
                    where + " is version " + version + ": the store needs Redis " + MIN_REDIS_MAJOR
                            + ".0 or later (its scripts read TIME before writing). Upgrade Redis.",
                    null);
        }

        String policy = info(answers.memory(), "memory", node, awaitMillis).get("maxmemory_policy");
        if (policy == null) {
            policy = configGet(commands, "maxmemory-policy", awaitMillis);
        }
        if (policy == null) {
            LOG.warn(
                    "{}: could not read maxmemory-policy (neither INFO memory nor CONFIG GET tell it). It must be"
                            + " noeviction, or Redis may evict pending messages when memory runs short.",
                    where);
        } else if (!policy.equals("noeviction")) {
            throw new StoreConfigurationException(
                    where + " has maxmemory-policy " + policy + ": when memory runs"
                            + " short it would evict keys, silently losing pending messages. Set maxmemory-policy noeviction"
                            + " on " + (connections.isCluster() ? "every master and replica of the cluster" : "it")
                            + " (in redis.conf, or CONFIG SET maxmemory-policy noeviction); a full Redis then refuses new"
                            + " messages, which the bridge reports and retries, instead of dropping stored ones.",
                    null);
        }

        int replicasConnected = parseInt(
                info(answers.replication(), "replication", node, awaitMillis).get("connected_slaves"));
        if (!connections.isCluster() && options.waitReplicas() > replicasConnected) {
            LOG.warn(
                    "{} has {} replicas connected but redis.waitReplicas is {}: every write batch fails after"
                            + " waitTimeout until enough replicas connect. Attach replicas or lower redis.waitReplicas.",
                    where,
                    replicasConnected,
                    options.waitReplicas());
        }

        warnAboutPersistence(options, answers, where, node, awaitMillis);
        return major < 0 ? SHARDED_PUBSUB_MAJOR : major;
    }

    /**
     * On a cluster, WAIT counts the replicas of the master a write went to: every master needs waitReplicas replicas
     * of its own, or every write batch to it would fail after waitTimeout.
     */
    private static void checkClusterReplicas(RedisConnections connections, int masterCount) {
        int wanted = connections.options().waitReplicas();
        if (wanted == 0) {
            return;
        }
        for (Map.Entry<String, Integer> master : connections.replicasPerMaster().entrySet()) {
            if (master.getValue() < wanted) {
                throw new StoreConfigurationException(
                        "redis.waitReplicas is " + wanted + " but the cluster master "
                                + master.getKey() + " has " + master.getValue() + " replica"
                                + (master.getValue() == 1 ? "" : "s") + " (of " + masterCount + " masters, each needs "
                                + wanted + "): every write batch to"
                                + " it would wait redis.waitTimeout and fail. Give every master at least " + wanted
                                + " replicas (redis-cli --cluster add-node <new> <existing> --cluster-slave), or set"
                                + " redis.waitReplicas to at most " + master.getValue() + ".",
                        null);
            }
        }
    }

    private static void warnAboutPersistence(
            RedisStoreOptions options, Answers answers, String where, Node node, long awaitMillis) {
        String aof =
                info(answers.persistence(), "persistence", node, awaitMillis).get("aof_enabled");
        String fsync = configValue(answers.appendfsync(), "appendfsync", awaitMillis);
        String replicas = options.waitReplicas() > 0
                ? " (each write batch also waits for " + options.waitReplicas() + " replicas, which narrows this)"
                : "";
        if ("0".equals(aof)) {
            LOG.warn(
                    "{} has appendonly no: if Redis stops or crashes, every write since its last RDB snapshot is"
                            + " lost, though the intake already committed those records{}. Set appendonly yes and"
                            + " appendfsync always for no loss.",
                    where,
                    replicas);
        } else if (fsync == null) {
            LOG.warn(
                    "{}: could not read appendfsync (CONFIG GET is not allowed). Make sure it is always:"
                            + " everysec can lose about a second of acknowledged writes if the Redis host crashes.",
                    where);
        } else if (fsync.equals("everysec")) {
            LOG.warn(
                    "{} has appendfsync everysec: if the Redis host crashes (power loss, kernel panic), about the"
                            + " last second (up to two) of acknowledged writes is lost, though the intake already committed"
                            + " those records{}. A crash of the Redis process alone loses nothing. Set appendfsync always"
                            + " for no loss.",
                    where,
                    replicas);
        } else if (fsync.equals("no")) {
            LOG.warn(
                    "{} has appendfsync no: if the Redis host crashes, the writes the operating system had not yet"
                            + " flushed (often 30 s) are lost, though the intake already committed those records{}. Set"
                            + " appendfsync always for no loss.",
                    where,
                    replicas);
        }
    }

    private static Map<String, String> info(RedisFuture<String> reply, String section, Node node, long awaitMillis) {
        return RedisCalls.parseInfo(RedisCalls.await(reply, "INFO " + section + " at " + node.address(), awaitMillis));
    }

    private static String configGet(
            RedisClusterAsyncCommands<byte[], byte[]> commands, String parameter, long awaitMillis) {
        return configValue(commands.configGet(parameter), parameter, awaitMillis);
    }

    /** The value of a CONFIG GET, or null if it failed (CONFIG not allowed, no answer). */
    private static String configValue(RedisFuture<Map<String, String>> reply, String parameter, long awaitMillis) {
        try {
            return reply.get(awaitMillis, TimeUnit.MILLISECONDS).get(parameter);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            LOG.debug("CONFIG GET {} failed", parameter, e);
            return null;
        }
    }

    private static int parseInt(String value) {
        try {
            return value == null ? 0 : Integer.parseInt(value);
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}

package io.delaybridge.checker;

import io.delaybridge.testkit.RedisCluster;
import io.delaybridge.testkit.RedisServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The Redis a campaign's bridges store in: one durable redis-server, or a Redis Cluster of three masters with a
 * replica each. The campaign reads what is pending from the masters, and the fault {@code redis} crashes it.
 */
interface CampaignRedis extends AutoCloseable {

    /** How long a replica may take to replace a killed master before the fault counts as failed. */
    Duration FAILOVER_TIMEOUT = Duration.ofSeconds(60);

    static CampaignRedis start(CampaignOptions.RedisTopology topology, Path dir) {
        return switch (topology) {
            case STANDALONE -> new Standalone(RedisServer.start(dir));
            case CLUSTER -> new Cluster(RedisCluster.start(dir, 3, 1));
        };
    }

    /** What the bridges get as {@code REDIS_URI}. */
    String uri();

    /** {@code redis://host:port} of every server that holds shards now (the masters of a cluster). */
    List<String> masterUris();

    /** kill -9, then what brings the store back; returns what happened, for the fault log. */
    String crash(SplittableRandom random);

    @Override
    void close();

    /** One redis-server: the crash is kill -9 and a restart that reloads the AOF. */
    record Standalone(RedisServer server) implements CampaignRedis {

        @Override
        public String uri() {
            return server.uri();
        }

        @Override
        public List<String> masterUris() {
            return List.of(server.uri());
        }

        @Override
        public String crash(SplittableRandom random) {
            server.kill();
            server.restart();
            return "kill -9 redis-server, restarted in "
                    + server.lastStartDuration().toMillis() + " ms";
        }

        @Override
        public void close() {
            server.close();
        }
    }

    /**
     * A cluster of three masters with a replica each: the crash is kill -9 of a random master; its replica takes
     * over, and the old master is restarted and rejoins as a replica (so the next crash again finds a replica).
     */
    record Cluster(RedisCluster cluster) implements CampaignRedis {

        @Override
        public String uri() {
            return cluster.uri();
        }

        @Override
        public List<String> masterUris() {
            return cluster.masters().stream().map(RedisServer::uri).toList();
        }

        @Override
        public String crash(SplittableRandom random) {
            List<RedisServer> masters = cluster.masters();
            RedisServer victim = masters.get(random.nextInt(masters.size()));
            long killed = System.nanoTime();
            cluster.kill(victim);
            RedisServer promoted = cluster.awaitFailover(FAILOVER_TIMEOUT);
            long tookOver = System.nanoTime();
            cluster.restart(victim);
            return String.format(
                    "kill -9 redis master %d, replica %d took over in %d ms, the old master rejoined "
                            + "as a replica in %d ms",
                    victim.port(),
                    promoted.port(),
                    (tookOver - killed) / 1_000_000,
                    (System.nanoTime() - tookOver) / 1_000_000);
        }

        @Override
        public void close() {
            cluster.close();
        }
    }
}

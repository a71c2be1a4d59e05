package io.delaybridge.testkit;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Redis Cluster of {@code redis-server} child processes for tests, benchmarks and fault campaigns: masters
 * with the 16384 slots split evenly, optionally replicas, every node durable ({@code --appendonly yes
 * --appendfsync always}) and killable with SIGKILL. The kit forms the cluster itself with {@code CLUSTER
 * SET-CONFIG-EPOCH}, {@code ADDSLOTS}, {@code MEET} and {@code REPLICATE} (no {@code redis-cli}, so the bundled
 * Redis 6.2 serves as well as a Redis 7 on the PATH).
 *
 * <pre>{@code
 * try (RedisCluster cluster = RedisCluster.start(tempDir, 3, 1)) {
 *     String uri = cluster.uri();                          // redis://127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3
 *     RedisServer master = cluster.masterOfKey("dq:{delay-intake:7}:due");
 *     cluster.kill(master);                                // SIGKILL
 *     RedisServer promoted = cluster.awaitFailover(Duration.ofSeconds(20));
 *     cluster.restart(master);                             // rejoins as a replica of the promoted one
 * }
 * }</pre>
 *
 * <p>Each node has its own directory {@code <dir>/node-<n>} (AOF, {@code nodes.conf}, {@code redis.log}) and
 * {@code --cluster-node-timeout 1000}, so a killed master's replica takes over within a few seconds.
 */
public final class RedisCluster implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(RedisCluster.class);
    static final int NODE_TIMEOUT_MILLIS = 1000;
    private static final Duration FORM_TIMEOUT = Duration.ofSeconds(30);
    private static final int BUS_PORT_OFFSET = 10000;

    private final List<RedisServer> nodes;
    private final List<RedisServer> initialMasters;
    /** Node id by port; ids survive restarts (they are kept in nodes.conf). */
    private final Map<Integer, String> ids = new HashMap<>();
    /** Replica ports of each killed master's id, in kill order. */
    private final Map<String, List<Integer>> killedMasters = new LinkedHashMap<>();

    private Duration formDuration = Duration.ZERO;

    private final TestCertificates tls;

    private RedisCluster(List<RedisServer> nodes, int masters, TestCertificates tls) {
        this.nodes = List.copyOf(nodes);
        this.initialMasters = List.copyOf(nodes.subList(0, masters));
        this.tls = tls;
    }

    /** Three masters, no replicas. */
    public static RedisCluster start(Path dir) {
        return start(dir, 3, 0);
    }

    /**
     * Starts {@code masters} masters and {@code replicasPerMaster} replicas of each in {@code dir}, forms the cluster
     * and returns once every node reports {@code cluster_state:ok}, sees every other node in its role and every
     * replica is in sync with its master. A fail-over needs a majority of masters alive: at least three masters.
     */
    public static RedisCluster start(Path dir, int masters, int replicasPerMaster) {
        return start(dir, masters, replicasPerMaster, null);
    }

    /**
     * As {@link #start(Path, int, int)}, every node speaking TLS only ({@link RedisServer#startTls}): clients, the
     * cluster bus and replication, client certificates required. {@link #uri()} is then {@code rediss://}.
     */
    public static RedisCluster startTls(Path dir, int masters, int replicasPerMaster, TestCertificates tls) {
        return start(dir, masters, replicasPerMaster, tls);
    }

    private static RedisCluster start(Path dir, int masters, int replicasPerMaster, TestCertificates tls) {
        if (masters < 1 || replicasPerMaster < 0) {
            throw new IllegalArgumentException("A cluster needs at least one master and no negative replica count: "
                    + masters + " masters, " + replicasPerMaster + " replicas per master");
        }
        long started = System.nanoTime();
        int total = masters * (1 + replicasPerMaster);
        List<CompletableFuture<RedisServer>> starting = new ArrayList<>();
        for (int i = 0; i < total; i++) {
            Path nodeDir = dir.resolve("node-" + (i + 1));
            starting.add(CompletableFuture.supplyAsync(() -> startNode(nodeDir, tls)));
        }
        List<RedisServer> nodes = new ArrayList<>();
        try {
            for (CompletableFuture<RedisServer> f : starting) {
                nodes.add(f.join());
            }
        } catch (RuntimeException e) {
            starting.forEach(f -> f.thenAccept(RedisServer::kill));
            throw e;
        }
        RedisCluster cluster = new RedisCluster(nodes, masters, tls);
        try {
            cluster.form(masters, replicasPerMaster);
        } catch (RuntimeException e) {
            cluster.nodes.forEach(RedisServer::kill);
            throw e;
        }
        cluster.formDuration = Duration.ofNanos(System.nanoTime() - started);
        LOG.info(
                "Redis Cluster of {} masters and {} replicas formed in {} ms: {}",
                masters,
                masters * replicasPerMaster,
                cluster.formDuration.toMillis(),
                cluster.uri());
        return cluster;
    }

    private static RedisServer startNode(Path nodeDir, TestCertificates tls) {
        List<String> args = List.of(
                "--cluster-enabled",
                "yes",
                "--cluster-config-file",
                nodeDir.toAbsolutePath().resolve("nodes.conf").toString(),
                "--cluster-node-timeout",
                Integer.toString(NODE_TIMEOUT_MILLIS),
                // Redis 7 waits 5 s by default for more replicas before a diskless full sync.
                "--repl-diskless-sync-delay",
                "0");
        if (tls != null) {
            // the bus port is the TLS port + 10000 (tls-cluster yes, no plain port)
            return RedisServer.startTls(nodeDir, tls, () -> FreePorts.pickWithPartner(BUS_PORT_OFFSET), args);
        }
        return RedisServer.start(nodeDir, () -> FreePorts.pickWithPartner(BUS_PORT_OFFSET), args);
    }

    private void form(int masters, int replicasPerMaster) {
        long deadline = System.nanoTime() + FORM_TIMEOUT.toNanos();
        for (int i = 0; i < nodes.size(); i++) {
            RedisServer node = nodes.get(i);
            ids.put(node.port(), (String) RedisProbes.call(node, "CLUSTER", "MYID"));
            // Distinct epochs up front, as redis-cli does: no epoch collisions to resolve after MEET.
            RedisProbes.call(node, "CLUSTER", "SET-CONFIG-EPOCH", Integer.toString(i + 1));
        }
        for (int m = 0; m < masters; m++) {
            int from = m * RedisSlots.SLOTS / masters;
            int to = (m + 1) * RedisSlots.SLOTS / masters;
            List<String> args = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
            for (int slot = from; slot < to; slot++) {
                args.add(Integer.toString(slot));
            }
            RedisProbes.call(nodes.get(m), args.toArray(String[]::new));
        }
        // Every node meets every other one: no waiting for gossip to spread the news.
        for (int a = 0; a < nodes.size(); a++) {
            for (int b = a + 1; b < nodes.size(); b++) {
                RedisProbes.call(
                        nodes.get(a),
                        "CLUSTER",
                        "MEET",
                        FreePorts.LOOPBACK.getHostAddress(),
                        Integer.toString(nodes.get(b).port()));
            }
        }
        RedisProbes.await(deadline, "every node to know every other node", () -> {
            for (RedisServer node : nodes) {
                ClusterView view = view(node);
                if (view.nodes().size() != nodes.size()) {
                    return node.port() + " knows " + view.nodes().size() + " of " + nodes.size() + " nodes";
                }
                Optional<ClusterView.Node> troubled = view.nodes().stream()
                        .filter(ClusterView.Node::isTroubled)
                        .findFirst();
                if (troubled.isPresent()) {
                    return node.port() + " sees " + troubled.get().port() + " as "
                            + troubled.get().flags();
                }
            }
            return null;
        });
        for (int r = masters; r < nodes.size(); r++) {
            RedisServer master = nodes.get((r - masters) % masters);
            RedisProbes.call(nodes.get(r), "CLUSTER", "REPLICATE", ids.get(master.port()));
        }
        RedisProbes.await(
                deadline,
                "cluster_state:ok with every role seen by every node and replicas in sync",
                () -> problemOfFormedCluster(masters));
    }

    /** Null once every node is ok, sees every node in its expected role, and every replica is in sync. */
    private String problemOfFormedCluster(int masters) {
        for (RedisServer node : nodes) {
            String state = Resp.infoField((String) RedisProbes.call(node, "CLUSTER", "INFO"), "cluster_state");
            if (!"ok".equals(state)) {
                return node.port() + " has cluster_state:" + state;
            }
            ClusterView view = view(node);
            for (int i = 0; i < nodes.size(); i++) {
                String id = ids.get(nodes.get(i).port());
                Optional<ClusterView.Node> seen = view.byId(id);
                boolean asExpected = seen.isPresent()
                        && !seen.get().isTroubled()
                        && (i < masters
                                ? seen.get().isMaster()
                                : seen.get().isReplica()
                                        && seen.get()
                                                .masterId()
                                                .equals(ids.get(nodes.get((i - masters) % masters)
                                                        .port())));
                if (!asExpected) {
                    return node.port() + " sees " + nodes.get(i).port() + " as "
                            + seen.map(n -> n.flags() + " of " + n.masterId()).orElse("unknown");
                }
            }
        }
        for (RedisServer replica : nodes.subList(masters, nodes.size())) {
            String problem = RedisProbes.replicationProblem(replica);
            if (problem != null) {
                return problem;
            }
        }
        return null;
    }

    /**
     * The seed list of the masters the cluster started with: {@code redis://127.0.0.1:p1,127.0.0.1:p2,...}
     * ({@code rediss://} for a TLS cluster).
     */
    public String uri() {
        return (tls == null ? "redis://" : "rediss://")
                + initialMasters.stream().map(n -> "127.0.0.1:" + n.port()).collect(Collectors.joining(","));
    }

    /** Every node, killed ones included: the masters first (in slot order), then the replicas, as started. */
    public List<RedisServer> nodes() {
        return nodes;
    }

    /** The live nodes that serve slots now, in slot order, as a live node's view says. */
    public List<RedisServer> masters() {
        ClusterView view = liveView();
        return view.nodes().stream()
                .filter(n -> n.isMaster() && !n.slotRanges().isEmpty() && !n.isTroubled())
                .sorted(Comparator.comparingInt(n -> n.slotRanges().get(0)[0]))
                .map(n -> byPort(n.port()))
                .filter(RedisServer::isAlive)
                .toList();
    }

    /** The live replicas now, as a live node's view says. */
    public List<RedisServer> replicas() {
        ClusterView view = liveView();
        return view.nodes().stream()
                .filter(n -> n.isReplica() && !n.isTroubled())
                .map(n -> byPort(n.port()))
                .filter(RedisServer::isAlive)
                .toList();
    }

    /** The master that serves {@code slot} now, as a live node's view says. */
    public RedisServer masterOfSlot(int slot) {
        if (slot < 0 || slot >= RedisSlots.SLOTS) {
            throw new IllegalArgumentException("A slot is 0-" + (RedisSlots.SLOTS - 1) + ", not " + slot);
        }
        return liveView()
                .masterOfSlot(slot)
                .map(n -> byPort(n.port()))
                .orElseThrow(() -> new IllegalStateException("No master serves slot " + slot + " now"));
    }

    /** The master that serves {@code key}'s slot ({@link RedisSlots#slotOf(String)}) now. */
    public RedisServer masterOfKey(String key) {
        return masterOfSlot(RedisSlots.slotOf(key));
    }

    /** The node id ({@code CLUSTER MYID}) of one of this cluster's nodes. */
    public String idOf(RedisServer node) {
        return ids.get(node.port());
    }

    /** SIGKILL one node; returns once its process is gone. A master's replica takes over: {@link #awaitFailover}. */
    public synchronized void kill(RedisServer node) {
        requireNode(node);
        String id = ids.get(node.port());
        ClusterView view = liveView();
        boolean master = view.byId(id).map(ClusterView.Node::isMaster).orElse(false);
        node.kill();
        if (master) {
            List<Integer> replicaPorts = view.nodes().stream()
                    .filter(n -> id.equals(n.masterId()))
                    .map(ClusterView.Node::port)
                    .toList();
            killedMasters.put(id, replicaPorts);
        }
        LOG.info("Killed {} {} of the cluster", master ? "master" : "node", node.port());
    }

    /**
     * Waits until a replica of the master killed last serves its slots, every live node reports {@code
     * cluster_state:ok} and sees every slot served by a live master; returns the promoted replica.
     */
    public synchronized RedisServer awaitFailover(Duration timeout) {
        if (killedMasters.isEmpty()) {
            throw new IllegalStateException("No master of the cluster was killed: nothing to fail over");
        }
        String killed = new ArrayList<>(killedMasters.keySet()).get(killedMasters.size() - 1);
        List<Integer> candidates = killedMasters.get(killed);
        long deadline = System.nanoTime() + timeout.toNanos();
        RedisServer[] promoted = new RedisServer[1];
        RedisProbes.await(deadline, "a replica of the killed master to take over", () -> {
            String problem = problemOfLiveNodes();
            if (problem != null) {
                return problem;
            }
            for (Integer port : candidates) {
                RedisServer candidate = byPort(port);
                if (candidate.isAlive()) {
                    Optional<ClusterView.Node> self = view(candidate).byId(ids.get(port));
                    if (self.isPresent()
                            && self.get().isMaster()
                            && !self.get().slotRanges().isEmpty()) {
                        promoted[0] = candidate;
                        return null;
                    }
                }
            }
            return "no replica of the killed master " + killed + " is a master yet";
        });
        LOG.info("Replica {} took over from the killed master", promoted[0].port());
        return promoted[0];
    }

    /**
     * Restarts a killed node on its port and data; it rejoins the cluster (a master whose slots were taken over
     * comes back as a replica of the one that took them). Returns once every live node, this one included, reports
     * {@code cluster_state:ok}, no live node sees a live node as failing, and, if it is a replica, it is in sync.
     */
    public synchronized void restart(RedisServer node) {
        requireNode(node);
        node.restart();
        long deadline = System.nanoTime() + FORM_TIMEOUT.toNanos();
        RedisProbes.await(deadline, "the restarted node " + node.port() + " to rejoin", () -> {
            String problem = problemOfLiveNodes();
            if (problem != null) {
                return problem;
            }
            Optional<ClusterView.Node> self = view(node).byId(ids.get(node.port()));
            return self.isPresent() && self.get().isReplica() ? RedisProbes.replicationProblem(node) : null;
        });
        killedMasters.remove(ids.get(node.port()));
    }

    /** Null once every live node is ok and sees every live node without failure flags and every slot served. */
    private String problemOfLiveNodes() {
        for (RedisServer node : nodes) {
            if (!node.isAlive()) {
                continue;
            }
            String state = Resp.infoField((String) RedisProbes.call(node, "CLUSTER", "INFO"), "cluster_state");
            if (!"ok".equals(state)) {
                return node.port() + " has cluster_state:" + state;
            }
            ClusterView view = view(node);
            for (ClusterView.Node seen : view.nodes()) {
                if (byPort(seen.port()).isAlive() && seen.isTroubled()) {
                    return node.port() + " sees the live node " + seen.port() + " as " + seen.flags();
                }
            }
            int served = view.nodes().stream()
                    .filter(n ->
                            n.isMaster() && !n.isTroubled() && byPort(n.port()).isAlive())
                    .mapToInt(ClusterView.Node::slotCount)
                    .sum();
            if (served != RedisSlots.SLOTS) {
                return node.port() + " sees " + served + " slots served by live masters";
            }
        }
        return null;
    }

    /** How long {@link #start} took, from the first process to the formed cluster. */
    public Duration formDuration() {
        return formDuration;
    }

    @Override
    public void close() {
        List<CompletableFuture<Void>> stopping =
                nodes.stream().map(n -> CompletableFuture.runAsync(n::stop)).toList();
        stopping.forEach(CompletableFuture::join);
    }

    @Override
    public String toString() {
        return "RedisCluster[" + uri() + "]";
    }

    private ClusterView liveView() {
        for (RedisServer node : nodes) {
            if (node.isAlive()) {
                try {
                    return view(node);
                } catch (IllegalStateException e) {
                    LOG.debug("Node {} did not answer CLUSTER NODES", node.port(), e);
                }
            }
        }
        throw new IllegalStateException("No node of the cluster is alive");
    }

    private static ClusterView view(RedisServer node) {
        return ClusterView.parse((String) RedisProbes.call(node, "CLUSTER", "NODES"));
    }

    private RedisServer byPort(int port) {
        for (RedisServer node : nodes) {
            if (node.port() == port) {
                return node;
            }
        }
        throw new IllegalStateException("Port " + port + " is no node of " + this);
    }

    private void requireNode(RedisServer node) {
        if (!nodes.contains(node)) {
            throw new IllegalArgumentException(node + " is no node of " + this);
        }
    }
}

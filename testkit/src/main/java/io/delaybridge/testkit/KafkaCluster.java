package io.delaybridge.testkit;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;

/**
 * A real Kafka cluster of several KRaft nodes, each a combined broker and controller in its own child JVM
 * ({@link KafkaBroker}): the controller quorum and every partition survive one node killed with SIGKILL, and a killed
 * node's leaderships and coordinators move to the others while it is down, as in production.
 *
 * <pre>{@code
 * try (KafkaCluster cluster = KafkaCluster.start(tempDir, 3)) {
 *     Map<String, Object> config = Map.of("bootstrap.servers", cluster.bootstrapServers());
 *     KafkaBroker node = cluster.node(2);
 *     node.kill();      // SIGKILL: the other two keep the quorum and take over its leaders
 *     node.restart();   // same ports and data; returns when it answers again
 * }
 * }</pre>
 *
 * <p>Settings beside a single broker's: {@code node.id} 1..n, every node a voter, one cluster id; topics created
 * without a replication factor and the internal topics ({@code __consumer_offsets}, {@code __transaction_state}) get
 * one replica on every node, and with three nodes or more {@code min.insync.replicas} is 2. Node {@code i}'s data and
 * log are in {@code dataDir/node-i}.
 */
public final class KafkaCluster implements AutoCloseable {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);

    /** A node's place in its cluster: what its {@code server.properties} and storage format need to know. */
    record Member(int nodeId, String voters, String clusterId, int size) {

        /** A broker of its own: node 1, its own controller the only voter, a random cluster id. */
        static Member single(int controllerPort) {
            return new Member(1, "1@127.0.0.1:" + controllerPort, null, 1);
        }

        /** Writes acknowledged by two replicas once there are three: one node may be down and nothing is lost. */
        int minInSyncReplicas() {
            return size >= 3 ? 2 : 1;
        }
    }

    private final List<KafkaBroker> nodes;

    private KafkaCluster(List<KafkaBroker> nodes) {
        this.nodes = List.copyOf(nodes);
    }

    /** Starts {@code size} nodes on free ports, together (none answers without a quorum); returns once all answer. */
    public static KafkaCluster start(Path dataDir, int size) {
        if (size < 1) {
            throw new IllegalArgumentException("a Kafka cluster needs at least one node, not " + size);
        }
        int[] ports = new int[size];
        int[] controllerPorts = new int[size];
        StringBuilder voters = new StringBuilder();
        for (int i = 0; i < size; i++) {
            ports[i] = FreePorts.pick();
            controllerPorts[i] = FreePorts.pick();
            voters.append(i == 0 ? "" : ",").append(i + 1).append("@127.0.0.1:").append(controllerPorts[i]);
        }
        String clusterId = Uuid.randomUuid().toString();
        List<KafkaBroker> nodes = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            nodes.add(new KafkaBroker(
                    dataDir.resolve("node-" + (i + 1)),
                    ports[i],
                    controllerPorts[i],
                    new Member(i + 1, voters.toString(), clusterId, size)));
        }
        KafkaCluster cluster = new KafkaCluster(nodes);
        try {
            CompletableFuture.allOf(nodes.stream()
                            .map(node -> CompletableFuture.runAsync(node::launch, KafkaCluster::ownThread))
                            .toArray(CompletableFuture[]::new))
                    .join();
            cluster.awaitNodes(size);
        } catch (RuntimeException e) {
            nodes.forEach(KafkaBroker::kill);
            throw e instanceof CompletionException && e.getCause() instanceof RuntimeException cause ? cause : e;
        }
        return cluster;
    }

    /** Every node's {@code 127.0.0.1:port}, comma-separated, for {@code bootstrap.servers}. */
    public String bootstrapServers() {
        return nodes.stream().map(KafkaBroker::bootstrapServers).collect(Collectors.joining(","));
    }

    public List<KafkaBroker> nodes() {
        return nodes;
    }

    /** The node with this {@code node.id} (1..n). */
    public KafkaBroker node(int nodeId) {
        return nodes.stream()
                .filter(n -> n.nodeId() == nodeId)
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no node " + nodeId + " in " + this));
    }

    public int size() {
        return nodes.size();
    }

    /** Stops every node at once: one by one, the last would wait for a quorum that is gone. */
    @Override
    public void close() {
        CompletableFuture.allOf(nodes.stream()
                        .map(node -> CompletableFuture.runAsync(node::stop, KafkaCluster::ownThread))
                        .toArray(CompletableFuture[]::new))
                .join();
    }

    /** One thread a node: the common pool may have a single thread on a small machine, and the nodes wait on each other. */
    private static void ownThread(Runnable task) {
        Thread thread = new Thread(task, "kafka-cluster-node");
        thread.setDaemon(true);
        thread.start();
    }

    @Override
    public String toString() {
        return "KafkaCluster[" + bootstrapServers() + "]";
    }

    private void awaitNodes(int size) {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        try (Admin admin = Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(),
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 2000,
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 2000))) {
            int seen = 0;
            while (System.nanoTime() < deadline) {
                try {
                    seen = admin.describeCluster()
                            .nodes()
                            .get(3, TimeUnit.SECONDS)
                            .size();
                } catch (Exception e) {
                    seen = 0;
                }
                if (seen == size) {
                    return;
                }
                ChildProcesses.pause(50);
            }
            throw new IllegalStateException(this + ": " + seen + " of " + size + " nodes registered within "
                    + START_TIMEOUT.toSeconds() + " s; see each node's broker.log");
        }
    }
}

package io.delaybridge.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;

/**
 * Entry point of the child JVM that {@link KafkaBroker} starts: formats the KRaft log directory if it is not
 * formatted yet, then runs a combined broker + controller until the process is told to stop.
 *
 * <p>Usage: {@code java -cp <class path> io.delaybridge.testkit.KafkaBrokerMain server.properties}.
 * With the system property {@value #PARENT_PID_PROPERTY} set, the broker halts when that process ends, so a
 * test JVM that dies without running its shutdown hooks leaves no broker behind.
 *
 * <p>The log directory is formatted through the {@link Formatter} API rather than {@code kafka.tools.StorageTool}:
 * StorageTool needs argparse4j 0.7, which clashes with the 0.9 that Dropwizard puts on the same class path.
 */
public final class KafkaBrokerMain {

    /** System property naming the process whose end makes this broker halt. */
    public static final String PARENT_PID_PROPERTY = "delaybridge.testkit.parentPid";

    /** System property with the cluster id to format with: the nodes of one {@link KafkaCluster} share theirs. */
    public static final String CLUSTER_ID_PROPERTY = "delaybridge.testkit.clusterId";

    private KafkaBrokerMain() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("Usage: KafkaBrokerMain <server.properties>");
            System.exit(2);
        }
        Properties props = new Properties();
        try (InputStream in = Files.newInputStream(Path.of(args[0]))) {
            props.load(in);
        }
        haltWhenParentEnds();

        KafkaConfig config = KafkaConfig.fromProps(props, false);
        formatIfNeeded(config);

        KafkaRaftServer server = new KafkaRaftServer(config, Time.SYSTEM);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            try {
                                server.shutdown();
                            } catch (Throwable t) {
                                t.printStackTrace();
                                Runtime.getRuntime().halt(1);
                            }
                        },
                        "kafka-broker-shutdown"));
        try {
            server.startup();
        } catch (Throwable t) {
            System.err.println("Kafka broker failed to start");
            t.printStackTrace();
            Runtime.getRuntime().halt(1);
        }
        System.out.println("KafkaBrokerMain: broker started");
        server.awaitShutdown();
    }

    private static void formatIfNeeded(KafkaConfig config) throws Exception {
        List<String> dirs = config.logDirs();
        String metadataDir = config.metadataLogDir();
        boolean formatted = dirs.stream().allMatch(d -> Files.exists(Path.of(d, "meta.properties")))
                && Files.exists(Path.of(metadataDir, "meta.properties"));
        if (formatted) {
            return;
        }
        Formatter formatter = new Formatter()
                .setPrintStream(System.out)
                .setNodeId(config.nodeId())
                .setClusterId(System.getProperty(
                        CLUSTER_ID_PROPERTY, Uuid.randomUuid().toString()))
                .setIgnoreFormatted(true)
                .setControllerListenerName(config.controllerListenerNames().get(0))
                .setMetadataLogDirectory(Optional.of(metadataDir));
        dirs.forEach(formatter::addDirectory);
        formatter.addDirectory(metadataDir);
        formatter.run();
    }

    private static void haltWhenParentEnds() throws IOException {
        String parent = System.getProperty(PARENT_PID_PROPERTY);
        if (parent == null || parent.isBlank()) {
            return;
        }
        Optional<ProcessHandle> handle = ProcessHandle.of(Long.parseLong(parent.trim()));
        if (handle.isEmpty()) {
            Runtime.getRuntime().halt(3);
        }
        handle.get().onExit().thenRun(() -> {
            System.err.println("KafkaBrokerMain: parent process " + parent + " ended, halting");
            Runtime.getRuntime().halt(3);
        });
    }
}

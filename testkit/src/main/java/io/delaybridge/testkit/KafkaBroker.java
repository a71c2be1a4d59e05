package io.delaybridge.testkit;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real single-node Kafka broker (KRaft, combined broker + controller) running in a child JVM, for tests,
 * benchmarks and fault campaigns: it can be SIGKILLed and restarted on the same ports and data.
 *
 * <pre>{@code
 * try (KafkaBroker broker = KafkaBroker.start(tempDir)) {
 *     Map<String, Object> config = Map.of("bootstrap.servers", broker.bootstrapServers());
 *     // ... produce, then
 *     broker.kill();     // SIGKILL
 *     broker.restart();  // same ports, same log directory; returns when it answers again
 * }
 * }</pre>
 *
 * <p>Settings: one node (id 1), replication factor and min ISR 1 for the internal topics,
 * {@code auto.create.topics.enable=false} (create topics explicitly: a missing topic fails; a broker started with
 * {@link Option#AUTO_CREATE_TOPICS} creates them on first use, as Kafka does by default),
 * {@code num.partitions=1}, {@code group.initial.rebalance.delay.ms=0}. The child JVM runs
 * {@link KafkaBrokerMain} on this JVM's class path with a 512 MiB heap; its output (WARN, plus start/stop
 * milestones at INFO) goes to {@code broker.log} in the data directory, never to the test console. Extra JVM
 * options for the child can be given in the system property {@value #JVM_ARGS_PROPERTY} (space-separated, e.g.
 * {@code -Xmx2g -XX:+UseParallelGC}; they come after the defaults, and a GC named there replaces the default
 * serial GC).
 *
 * <p>Data directory layout: {@code kafka-logs/} (log and metadata directory), {@code server.properties},
 * {@code broker.log}, and the logging configurations.
 */
public final class KafkaBroker extends ChildServer {

    /** System property with extra JVM options for the broker child JVM, space-separated. */
    public static final String JVM_ARGS_PROPERTY = "delaybridge.testkit.kafkaJvmArgs";

    private static final Logger LOG = LoggerFactory.getLogger(KafkaBroker.class);
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
    private static final List<String> JVM_OPTIONS = List.of(
            "-Xms128m",
            "-Xmx512m",
            "-XX:+UseSerialGC",
            "-XX:+ExitOnOutOfMemoryError",
            "-XX:-UsePerfData",
            "-Djava.awt.headless=true",
            "-Djava.net.preferIPv4Stack=true");

    /** Settings that differ from the kit's defaults, for a broker of its own. */
    public enum Option {
        /** {@code auto.create.topics.enable=true}, Kafka's own default: a producer's first send creates a topic. */
        AUTO_CREATE_TOPICS,
        /** Transactions past their timeout are looked for every 10 min, not 10 s: one held up by a freeze commits. */
        LATE_TRANSACTION_TIMEOUTS,
        /**
         * A session of 2 min at its own controller, not 3 s: a broker frozen (SIGSTOP) for less than that is not fenced
         * when it wakes. Fenced, a single broker leaves every partition without a leader for a moment, and Kafka's
         * transaction coordinator (4.3) skips the markers of a transaction ending then for a partition without a
         * leader, as if it were deleted: the partition's records of an aborted transaction stay open, and the same
         * producer's next commit there commits them. A test of the bridge under a frozen broker takes this, so that
         * it checks the bridge and not that gap (docs/reliability.md, "Exactly once"); the broker restarts after a
         * kill no faster than the session, so a broker that is killed does not.
         */
        NO_FENCE_ON_WAKE
    }

    private final int port;
    private final int controllerPort;
    private final Set<Option> options;
    private final int saslPort;
    private final TestCertificates tls;
    /** Its place in a {@link KafkaCluster}; a broker of its own is node 1 of one. */
    private final KafkaCluster.Member member;

    private KafkaBroker(Path dataDir, int port, int controllerPort, Set<Option> options) {
        this(dataDir, port, controllerPort, options, 0, null);
    }

    /** A node of a {@link KafkaCluster}: the cluster starts its nodes together, for none answers without a quorum. */
    KafkaBroker(Path dataDir, int port, int controllerPort, KafkaCluster.Member member) {
        this(dataDir, port, controllerPort, EnumSet.noneOf(Option.class), 0, null, member);
    }

    private KafkaBroker(
            Path dataDir, int port, int controllerPort, Set<Option> options, int saslPort, TestCertificates tls) {
        this(dataDir, port, controllerPort, options, saslPort, tls, KafkaCluster.Member.single(controllerPort));
    }

    private KafkaBroker(
            Path dataDir,
            int port,
            int controllerPort,
            Set<Option> options,
            int saslPort,
            TestCertificates tls,
            KafkaCluster.Member member) {
        super(dataDir);
        this.port = port;
        this.controllerPort = controllerPort;
        this.options = options;
        this.saslPort = saslPort;
        this.tls = tls;
        this.member = member;
    }

    /**
     * A broker as production secures one: beside the kit's own {@code PLAINTEXT} listener a {@code SASL_SSL} listener
     * ({@link #saslBootstrapServers()}) with SCRAM-SHA-512 and the server certificate of {@code tls}, and the
     * authorizer on ({@code StandardAuthorizer}, no ACL = denied). The {@code PLAINTEXT} listener (loopback, principal
     * {@code User:ANONYMOUS}, a super user) is the test's administrator: it creates topics, SCRAM users ({@link
     * #addScramUser}) and ACLs, and inter-broker and controller traffic use it. Clients under test use only the
     * {@code SASL_SSL} one, where every request is checked against the ACLs.
     */
    public static KafkaBroker startSecured(Path dataDir, TestCertificates tls) {
        return startRetryingPorts(
                () -> new KafkaBroker(
                        dataDir,
                        FreePorts.pick(),
                        FreePorts.pick(),
                        EnumSet.noneOf(Option.class),
                        FreePorts.pick(),
                        tls),
                true);
    }

    /** {@code 127.0.0.1:port} of the {@code SASL_SSL} listener of a {@link #startSecured} broker. */
    public String saslBootstrapServers() {
        if (saslPort == 0) {
            throw new IllegalStateException("this broker has no SASL_SSL listener: start it with startSecured");
        }
        return "127.0.0.1:" + saslPort;
    }

    /** Creates (or replaces) a SCRAM-SHA-512 user, through the administrator's listener. */
    public void addScramUser(String user, String password) {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers()))) {
            admin.alterUserScramCredentials(List.of(new org.apache.kafka.clients.admin.UserScramCredentialUpsertion(
                            user,
                            new org.apache.kafka.clients.admin.ScramCredentialInfo(
                                    org.apache.kafka.clients.admin.ScramMechanism.SCRAM_SHA_512, 4096),
                            password)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("Cannot create the SCRAM user " + user, e);
        }
    }

    /** Starts a broker on free ports with its data in {@code dataDir}; returns once it answers. */
    public static KafkaBroker start(Path dataDir) {
        return start(dataDir, 0, 0);
    }

    /** Starts a broker on free ports with the given settings changed, e.g. {@link Option#AUTO_CREATE_TOPICS}. */
    public static KafkaBroker start(Path dataDir, Option first, Option... more) {
        Set<Option> options = EnumSet.of(first, more);
        return startRetryingPorts(() -> new KafkaBroker(dataDir, FreePorts.pick(), FreePorts.pick(), options), true);
    }

    /**
     * Starts a broker on the given ports (0 = pick a free one; with both 0, retried on new ports if one was taken
     * meanwhile)
     * with its data in {@code dataDir}, formatting it on first use; returns once the broker answers.
     */
    public static KafkaBroker start(Path dataDir, int port, int controllerPort) {
        // Retried only when both ports were picked here: with a fixed port the clash is most likely on that one.
        return startRetryingPorts(
                () -> new KafkaBroker(
                        dataDir,
                        port == 0 ? FreePorts.pick() : port,
                        controllerPort == 0 ? FreePorts.pick() : controllerPort,
                        EnumSet.noneOf(Option.class)),
                port == 0 && controllerPort == 0);
    }

    /** {@code 127.0.0.1:port}, for {@code bootstrap.servers}. */
    public String bootstrapServers() {
        return "127.0.0.1:" + port;
    }

    public int port() {
        return port;
    }

    public int controllerPort() {
        return controllerPort;
    }

    /** The broker's log file (child JVM output). */
    @Override
    public Path logFile() {
        return dataDir.resolve("broker.log");
    }

    @Override
    public String toString() {
        return "KafkaBroker[" + bootstrapServers() + ", controller port " + controllerPort + ", " + dataDir + "]";
    }

    @Override
    protected String name() {
        return "Kafka broker on " + bootstrapServers();
    }

    /** This broker's {@code node.id}: 1 for a broker of its own, 1..n in a {@link KafkaCluster}. */
    public int nodeId() {
        return member.nodeId();
    }

    @Override
    protected Duration startTimeout() {
        return START_TIMEOUT;
    }

    @Override
    protected List<String> command() throws IOException {
        Path props = writeServerProperties();
        BrokerLogging.write(dataDir);
        return command(props);
    }

    private List<String> command(Path props) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(ChildProcesses.javaExecutable());
        String extra = System.getProperty(JVM_ARGS_PROPERTY, "").trim();
        List<String> extraArgs = extra.isEmpty() ? List.of() : Arrays.asList(extra.split("\\s+"));
        boolean ownGc = extraArgs.stream().anyMatch(a -> a.matches("-XX:\\+Use\\w*GC"));
        for (String option : JVM_OPTIONS) {
            if (!(ownGc && option.equals("-XX:+UseSerialGC"))) {
                cmd.add(option);
            }
        }
        cmd.addAll(extraArgs);
        cmd.add("-Dlogback.configurationFile=" + dataDir.resolve("broker-logback.xml"));
        cmd.add("-Dlog4j2.configurationFile=" + dataDir.resolve("broker-log4j2.xml"));
        cmd.add("-D" + KafkaBrokerMain.PARENT_PID_PROPERTY + "="
                + ProcessHandle.current().pid());
        if (member.clusterId() != null) {
            cmd.add("-D" + KafkaBrokerMain.CLUSTER_ID_PROPERTY + "=" + member.clusterId());
        }
        // The class path goes through an argument file: a long one (Dropwizard apps) could pass the
        // kernel's limit for one command-line argument.
        Path argFile = dataDir.resolve("broker-classpath.args");
        String classPath = System.getProperty("java.class.path");
        Files.writeString(
                argFile,
                "-cp \"" + classPath.replace("\\", "\\\\").replace("\"", "\\\"") + "\"\n",
                StandardCharsets.UTF_8);
        cmd.add("@" + argFile);
        cmd.add(KafkaBrokerMain.class.getName());
        cmd.add(props.toString());
        return cmd;
    }

    private Path writeServerProperties() throws IOException {
        Path logDir = dataDir.resolve("kafka-logs");
        Properties p = new Properties();
        p.setProperty("process.roles", "broker,controller");
        p.setProperty("node.id", Integer.toString(member.nodeId()));
        p.setProperty("controller.quorum.voters", member.voters());
        p.setProperty("listeners", "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort);
        p.setProperty("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port);
        p.setProperty("controller.listener.names", "CONTROLLER");
        p.setProperty("inter.broker.listener.name", "PLAINTEXT");
        p.setProperty("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        if (tls != null) {
            p.setProperty("listeners", p.getProperty("listeners") + ",SASL_SSL://127.0.0.1:" + saslPort);
            p.setProperty(
                    "advertised.listeners",
                    p.getProperty("advertised.listeners") + ",SASL_SSL://127.0.0.1:" + saslPort);
            p.setProperty(
                    "listener.security.protocol.map",
                    p.getProperty("listener.security.protocol.map") + ",SASL_SSL:SASL_SSL");
            p.setProperty("sasl.enabled.mechanisms", "SCRAM-SHA-512");
            p.setProperty(
                    "listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config",
                    "org.apache.kafka.common.security.scram.ScramLoginModule required;");
            p.setProperty(
                    "listener.name.sasl_ssl.ssl.keystore.location",
                    tls.serverKeyStore().toString());
            p.setProperty("listener.name.sasl_ssl.ssl.keystore.type", "PKCS12");
            p.setProperty("listener.name.sasl_ssl.ssl.keystore.password", tls.password());
            p.setProperty("listener.name.sasl_ssl.ssl.key.password", tls.password());
            p.setProperty("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
            p.setProperty("super.users", "User:ANONYMOUS");
            p.setProperty("allow.everyone.if.no.acl.found", "false");
        }
        p.setProperty("log.dirs", logDir.toString());
        p.setProperty("num.partitions", "1");
        // in a cluster every partition on every node and acknowledged by two (one node may be down): as production runs
        String replicas = Integer.toString(member.size());
        String minIsr = Integer.toString(member.minInSyncReplicas());
        p.setProperty("default.replication.factor", replicas);
        p.setProperty("min.insync.replicas", minIsr);
        p.setProperty("auto.create.topics.enable", Boolean.toString(options.contains(Option.AUTO_CREATE_TOPICS)));
        if (options.contains(Option.LATE_TRANSACTION_TIMEOUTS)) {
            p.setProperty("transaction.abort.timed.out.transaction.cleanup.interval.ms", "600000");
        }
        p.setProperty("group.initial.rebalance.delay.ms", "0");
        p.setProperty("offsets.topic.replication.factor", replicas);
        p.setProperty("offsets.topic.num.partitions", "5");
        p.setProperty("transaction.state.log.replication.factor", replicas);
        p.setProperty("transaction.state.log.min.isr", minIsr);
        p.setProperty("transaction.state.log.num.partitions", "5");
        p.setProperty("share.coordinator.state.topic.replication.factor", replicas);
        p.setProperty("share.coordinator.state.topic.min.isr", minIsr);
        // The default 128 MiB dedupe buffer would take a quarter of the child's heap.
        p.setProperty("log.cleaner.dedupe.buffer.size", String.valueOf(16 * 1024 * 1024));
        // After a SIGKILL the restarted broker cannot register until the old registration's session expires
        // (default 9 s): a short session makes restart-after-kill fast.
        p.setProperty("broker.session.timeout.ms", options.contains(Option.NO_FENCE_ON_WAKE) ? "120000" : "3000");
        p.setProperty("broker.heartbeat.interval.ms", "500");
        p.setProperty("num.network.threads", "2");
        p.setProperty("num.io.threads", "4");
        p.setProperty("num.recovery.threads.per.data.dir", "2");
        Path file = dataDir.resolve("server.properties");
        try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            p.store(w, "written by " + KafkaBroker.class.getName());
        }
        return file;
    }

    /** Ready once the port is open and the cluster describes itself with a node. */
    @Override
    protected ReadinessProbe readinessProbe() {
        return new ReadinessProbe() {
            private Admin admin;

            @Override
            public String problem() throws Exception {
                if (admin == null) {
                    if (!FreePorts.isListening(port, 200)) {
                        return "port " + port + " not open yet";
                    }
                    admin = Admin.create(Map.of(
                            AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(),
                            AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 2000,
                            AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 2000,
                            AdminClientConfig.RETRY_BACKOFF_MS_CONFIG, 50,
                            AdminClientConfig.RECONNECT_BACKOFF_MS_CONFIG, 50,
                            AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 200));
                }
                int nodes = admin.describeCluster(new DescribeClusterOptions().timeoutMs(2000))
                        .nodes()
                        .get(3, TimeUnit.SECONDS)
                        .size();
                return nodes > 0 ? null : "describeCluster returned no nodes";
            }

            @Override
            public void close() {
                if (admin != null) {
                    admin.close(Duration.ofSeconds(1));
                }
            }
        };
    }
}

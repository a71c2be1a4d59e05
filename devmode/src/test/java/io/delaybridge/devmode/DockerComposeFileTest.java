package io.delaybridge.devmode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * No Docker engine runs on the build machines, so the compose stack in {@code docker/} cannot be started here. This
 * test checks what can be checked without one: that the compose file says what the bridge needs, and that it agrees
 * with {@code bridge/config.yml} (listener ports, topic partitions, variable names), the mistakes that otherwise show
 * up only when someone runs {@code docker compose up}. The image's own file: {@link DockerfileTest}.
 *
 * <p>YAML is read with Jackson's YAML module, which reaches this module's classpath through the bridge
 * (Dropwizard reads its configuration with it). It is deliberately not declared here with test scope: a direct
 * test-scoped declaration would override the transitive compile scope and take it off the development mode's runtime
 * classpath.
 */
class DockerComposeFileTest {

    private static final ObjectMapper YAML = new YAMLMapper();
    private static final Pattern CONFIG_VARIABLE = Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*)(?::?-[^}]*)?}");

    private static Path repo;
    private static String composeText;
    private static JsonNode composeTree;
    private static JsonNode services;
    private static String configText;
    private static JsonNode config;

    @BeforeAll
    static void read() throws IOException {
        // surefire runs in the module directory (devmode/); the files under test are beside it
        Path module = Path.of(System.getProperty("basedir", "")).toAbsolutePath();
        repo = module.getParent();
        Path compose = repo.resolve("docker/docker-compose.yml");
        assertTrue(Files.isRegularFile(compose), "no compose file at " + compose);
        composeText = Files.readString(compose);
        composeTree = withAliasesResolved(composeText);
        services = composeTree.path("services");
        configText = Files.readString(repo.resolve("bridge/config.yml"));
        config = YAML.readTree(configText);
    }

    @Test
    void theFourServicesExist() {
        for (String name : List.of("kafka", "redis", "topics", "bridge")) {
            assertTrue(services.has(name), "service " + name + " missing; services: " + fieldNames(services));
        }
    }

    @Test
    void everyDependencyIsAServiceAndTheBridgeWaitsForAllThree() {
        for (Map.Entry<String, JsonNode> service : fields(services)) {
            for (Map.Entry<String, JsonNode> dependency :
                    fields(service.getValue().path("depends_on"))) {
                assertTrue(
                        services.has(dependency.getKey()),
                        service.getKey() + " depends on unknown service " + dependency.getKey());
            }
        }
        JsonNode dependsOn = services.path("bridge").path("depends_on");
        assertEquals(
                "service_healthy", dependsOn.path("kafka").path("condition").asText());
        assertEquals(
                "service_healthy", dependsOn.path("redis").path("condition").asText());
        assertEquals(
                "service_completed_successfully",
                dependsOn.path("topics").path("condition").asText(),
                "the bridge must start after the intake topic exists with its settings, or it would create it itself");
        assertEquals(
                "service_healthy",
                services.path("topics")
                        .path("depends_on")
                        .path("kafka")
                        .path("condition")
                        .asText());
        assertFalse(
                services.path("kafka").path("healthcheck").path("test").isMissingNode(), "kafka needs a healthcheck");
        assertFalse(
                services.path("redis").path("healthcheck").path("test").isMissingNode(), "redis needs a healthcheck");
    }

    @Test
    void theBridgeReachesKafkaOnTheListenerAdvertisedToTheComposeNetwork() {
        String bootstrap = environment(services.path("bridge")).get("KAFKA_BOOTSTRAP_SERVERS");
        assertNotNull(bootstrap, "bridge: KAFKA_BOOTSTRAP_SERVERS not set");
        String[] hostPort = bootstrap.split(":");
        assertEquals(2, hostPort.length, "KAFKA_BOOTSTRAP_SERVERS " + bootstrap + " is not host:port");
        assertTrue(services.has(hostPort[0]), "KAFKA_BOOTSTRAP_SERVERS " + bootstrap + " names no compose service");
        assertEquals("kafka", hostPort[0]);

        Map<String, String> kafka = environment(services.path("kafka"));
        Map<String, String> advertised = listeners(kafka.get("KAFKA_ADVERTISED_LISTENERS"));
        Map<String, String> bound = listeners(kafka.get("KAFKA_LISTENERS"));
        String listener = advertised.entrySet().stream()
                .filter(e -> e.getValue().equals(bootstrap))
                .map(Map.Entry::getKey)
                .findFirst()
                .orElseThrow(() -> new AssertionError("no listener is advertised as " + bootstrap + ": " + advertised));
        assertEquals(
                hostPort[1],
                port(bound.get(listener)),
                "listener " + listener + " must listen on the port it is advertised with inside the network");
    }

    @Test
    void hostClientsReachKafkaOnTheAddressItAdvertisesToThem() {
        Map<String, String> kafka = environment(services.path("kafka"));
        Map<String, String> advertised = listeners(kafka.get("KAFKA_ADVERTISED_LISTENERS"));
        Map<String, String> bound = listeners(kafka.get("KAFKA_LISTENERS"));
        List<PublishedPort> published = publishedPorts(services.path("kafka"));
        assertFalse(published.isEmpty(), "kafka publishes no port for clients on the host");
        for (PublishedPort p : published) {
            String listener = bound.entrySet().stream()
                    .filter(e -> port(e.getValue()).equals(p.container))
                    .map(Map.Entry::getKey)
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("published port " + p + " is no listener of " + bound));
            String address = advertised.get(listener);
            assertNotNull(address, "listener " + listener + " is not advertised");
            assertEquals(
                    p.hostIp + ":" + p.host,
                    address,
                    "a host client bootstraps on " + p.hostIp + ":" + p.host + " and then connects to what listener "
                            + listener + " advertises, so both must be the same");
        }
        assertEquals(
                "false",
                kafka.get("KAFKA_AUTO_CREATE_TOPICS_ENABLE"),
                "topics are created by the topics service; a misspelt target must not create a topic");
    }

    @Test
    void theBridgeReachesRedisByServiceName() {
        String uri = withoutInterpolation(environment(services.path("bridge")).get("REDIS_URI"));
        assertNotNull(uri, "bridge: REDIS_URI not set");
        URI parsed = URI.create(uri);
        assertEquals("redis", parsed.getScheme());
        assertEquals("redis", parsed.getHost(), "REDIS_URI must name the redis service: " + uri);
        assertTrue(parsed.getPort() == -1 || parsed.getPort() == 6379, uri);
    }

    @Test
    void redisIsDurableAndNeverEvicts() {
        List<String> tokens = tokens(services.path("redis").path("command"));
        Map<String, String> options = options(tokens);
        assertEquals("redis-server", tokens.isEmpty() ? null : tokens.get(0), "redis command: " + tokens);
        assertEquals("yes", options.get("--appendonly"), "redis command: " + tokens);
        assertEquals("always", options.get("--appendfsync"), "redis command: " + tokens);
        assertEquals("1gb", options.get("--auto-aof-rewrite-min-size"), "redis command: " + tokens);
        assertEquals("noeviction", options.get("--maxmemory-policy"), "redis command: " + tokens);
        assertTrue(hasVolumeAt(services.path("redis"), "/data"), "redis data must be on a volume");
    }

    /**
     * Plain {@code up} starts what it always did; {@code --profile cluster} adds the cluster and {@code --profile
     * monitoring} Prometheus, redis_exporter and Grafana, and nothing else.
     */
    @Test
    void onlyTheClusterAndMonitoringProfilesServicesHaveAProfile() {
        Set<String> cluster = new LinkedHashSet<>();
        Set<String> monitoring = new LinkedHashSet<>();
        for (Map.Entry<String, JsonNode> service : fields(services)) {
            List<String> profiles = new ArrayList<>();
            service.getValue().path("profiles").forEach(p -> profiles.add(p.asText()));
            if (profiles.equals(List.of("cluster"))) {
                cluster.add(service.getKey());
            } else if (profiles.equals(List.of("monitoring"))) {
                monitoring.add(service.getKey());
            } else {
                assertEquals(List.of(), profiles, service.getKey());
            }
        }
        assertEquals(
                Set.of(
                        "redis-node-1",
                        "redis-node-2",
                        "redis-node-3",
                        "redis-node-4",
                        "redis-node-5",
                        "redis-node-6",
                        "redis-cluster-create"),
                cluster);
        assertEquals(Set.of("prometheus", "redis-exporter", "grafana"), monitoring);
    }

    /** The monitoring profile mounts the shipped rules and dashboard, and scrapes the bridge where it serves. */
    @Test
    void theMonitoringProfileMountsTheShippedRulesAndDashboard() throws IOException {
        for (String service : List.of("prometheus", "grafana")) {
            for (JsonNode volume : services.path(service).path("volumes")) {
                Path source = repo.resolve("docker")
                        .resolve(volume.asText().split(":")[0])
                        .normalize();
                assertTrue(Files.isRegularFile(source), service + " mounts " + source + ", which does not exist");
            }
        }
        String volumes = services.path("prometheus").path("volumes").toString()
                + services.path("grafana").path("volumes").toString();
        assertTrue(volumes.contains("../monitoring/prometheus/delay-bridge-rules.yml"), volumes);
        assertTrue(volumes.contains("../monitoring/grafana/delay-bridge-dashboard.json"), volumes);
        JsonNode prometheus =
                YAML.readTree(repo.resolve("docker/monitoring/prometheus.yml").toFile());
        JsonNode bridgeJob = prometheus.path("scrape_configs").get(0);
        assertEquals("/prometheus", bridgeJob.path("metrics_path").asText());
        assertEquals(
                "bridge:8081",
                bridgeJob.path("static_configs").get(0).path("targets").get(0).asText());
        assertTrue(services.has("bridge"));
    }

    @Test
    void everyClusterNodeIsADurableNonEvictingClusterNodeOnItsOwnVolume() {
        Set<String> volumes = new LinkedHashSet<>();
        for (String node : clusterNodes()) {
            JsonNode service = services.path(node);
            Map<String, String> options = options(tokens(service.path("command")));
            assertEquals("yes", options.get("--cluster-enabled"), node);
            assertEquals("yes", options.get("--appendonly"), node);
            assertEquals("always", options.get("--appendfsync"), node);
            assertEquals("1gb", options.get("--auto-aof-rewrite-min-size"), node);
            assertEquals("noeviction", options.get("--maxmemory-policy"), node);
            assertTrue(hasVolumeAt(service, "/data"), node + ": data must be on a volume");
            for (JsonNode v : service.path("volumes")) {
                assertTrue(volumes.add(v.asText().split(":")[0]), node + " shares the volume " + v.asText());
            }
            assertFalse(service.path("healthcheck").path("test").isMissingNode(), node + " needs a healthcheck");
            assertTrue(publishedPorts(service).isEmpty(), node + ": nothing here has authentication, publish nothing");
        }
        assertTrue(declaredVolumes().containsAll(volumes), "volumes not declared: " + volumes);
    }

    @Test
    void theClusterIsCreatedFromEveryNodeWithAReplicaEachAndTheBridgeWaitsForIt() {
        JsonNode create = services.path("redis-cluster-create");
        for (String node : clusterNodes()) {
            assertEquals(
                    "service_healthy",
                    create.path("depends_on").path(node).path("condition").asText(),
                    "redis-cluster-create must wait for " + node);
        }
        String script = String.join(" ", tokens(create.path("command")));
        assertTrue(script.contains("redis-cli --cluster create"), script);
        assertTrue(script.contains("--cluster-replicas 1"), script);
        assertTrue(script.contains("for n in 1 2 3 4 5 6;"), "every node joins: " + script);
        JsonNode dependency = services.path("bridge").path("depends_on").path("redis-cluster-create");
        assertEquals(
                "service_completed_successfully", dependency.path("condition").asText());
        assertEquals(
                "false",
                dependency.path("required").asText(),
                "without --profile cluster the bridge must not wait for a cluster that is not started");
    }

    /** The command the compose file and docker/README.md give for the cluster names its masters as seeds. */
    @Test
    void theDocumentedClusterUriNamesTheClustersNodes() throws IOException {
        Pattern clusterUri = Pattern.compile("REDIS_URI=redis://([\\w.,:-]+)");
        for (String text : List.of(composeText, Files.readString(repo.resolve("docker/README.md")))) {
            Matcher m = clusterUri.matcher(text);
            assertTrue(m.find(), "no REDIS_URI=redis://... for the cluster profile");
            for (String seed : m.group(1).split(",")) {
                String host = seed.split(":")[0];
                assertTrue(clusterNodes().contains(host), "seed " + seed + " is no cluster node");
                assertEquals("6379", seed.split(":")[1], seed);
            }
        }
    }

    @Test
    void theTopicsServiceCreatesTheIntakeWithLogAppendTimeAndTheConfiguredPartitions() {
        String script = String.join(" ", tokens(services.path("topics").path("command")));
        String intake = creation(script, "delay-intake");
        assertTrue(intake.contains("--config message.timestamp.type=LogAppendTime"), intake);
        Matcher partitions = Pattern.compile("--partitions (\\d+)").matcher(intake);
        assertTrue(partitions.find(), intake);
        assertEquals(
                config.path("kafka").path("intakePartitions").asText(),
                partitions.group(1),
                "the intake's partitions must match intakePartitions in bridge/config.yml");
        creation(script, "delay-deadletter");
        creation(script, "orders.timeout");
    }

    @Test
    void theBridgesPortsArePublishedOnTheHostsLoopback() {
        List<PublishedPort> published = publishedPorts(services.path("bridge"));
        Set<String> containerPorts = new LinkedHashSet<>();
        for (PublishedPort p : published) {
            containerPorts.add(p.container);
            assertEquals("127.0.0.1", p.hostIp, "publish " + p + " on the host's loopback only");
        }
        assertTrue(containerPorts.containsAll(List.of("8080", "8081")), "bridge publishes " + published);
        assertEquals("0.0.0.0", environment(services.path("bridge")).getOrDefault("DELAY_BIND_HOST", "0.0.0.0"));
    }

    @Test
    void everyVariableSetOnTheBridgeIsOneConfigYmlReads() {
        Set<String> read = new LinkedHashSet<>();
        for (String line : configText.split("\n")) {
            if (line.strip().startsWith("#")) {
                continue; // the file's header explains the syntax with ${NAME:-default}
            }
            Matcher m = CONFIG_VARIABLE.matcher(line);
            while (m.find()) {
                read.add(m.group(1));
            }
        }
        assertTrue(
                read.containsAll(List.of("KAFKA_BOOTSTRAP_SERVERS", "REDIS_URI", "DELAY_BIND_HOST")),
                "bridge/config.yml reads " + read);
        Map<String, String> env = environment(services.path("bridge"));
        assertFalse(env.isEmpty(), "bridge sets no environment");
        for (String name : env.keySet()) {
            assertTrue(
                    read.contains(name),
                    "the compose file sets " + name + " on the bridge, but bridge/config.yml reads only " + read);
        }
    }

    @Test
    void theBridgeIsBuiltFromTheRepositoryRootWithTheDockerfile() {
        JsonNode build = services.path("bridge").path("build");
        Path context =
                repo.resolve("docker").resolve(build.path("context").asText()).normalize();
        assertEquals(repo.normalize(), context, "the build context must be the repository root (the Maven reactor)");
        assertTrue(
                Files.isRegularFile(context.resolve(build.path("dockerfile").asText())),
                "dockerfile " + build.path("dockerfile").asText() + " not found in " + context);
    }

    /**
     * Compose reads {@code $NAME} and {@code ${NAME}} from the caller's environment before a container sees them,
     * so a shell variable in a command must be written {@code $$NAME}; a lone {@code $} would silently expand to
     * nothing. Only {@code ${...}} is allowed as deliberate interpolation.
     */
    @Test
    void noShellVariableIsLeftForComposeToInterpolate() {
        String[] lines = composeText.split("\n", -1);
        for (int n = 0; n < lines.length; n++) {
            String line = lines[n];
            if (line.strip().startsWith("#")) {
                continue;
            }
            for (int i = 0; i < line.length(); i++) {
                if (line.charAt(i) != '$') {
                    continue;
                }
                char next = i + 1 < line.length() ? line.charAt(i + 1) : ' ';
                if (next == '$') {
                    i++;
                } else if (next != '{') {
                    fail("docker-compose.yml line " + (n + 1) + ": lone $ would be interpolated by compose, write $$: "
                            + line.strip());
                }
            }
        }
    }

    // ---- helpers ------------------------------------------------------------------------------------------------

    /**
     * The compose file as Compose reads it: Jackson's YAML parser leaves aliases ({@code *redis-healthcheck})
     * unresolved, so the document is loaded with SnakeYAML (under Jackson's YAML module) and then turned into a tree.
     */
    private static JsonNode withAliasesResolved(String yaml) {
        return YAML.valueToTree(new org.yaml.snakeyaml.Yaml().load(yaml));
    }

    /** {@code --name value} pairs of a command. */
    private static Map<String, String> options(List<String> tokens) {
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 0; i < tokens.size(); i++) {
            if (tokens.get(i).startsWith("--") && i + 1 < tokens.size()) {
                options.put(tokens.get(i), tokens.get(i + 1));
            }
        }
        return options;
    }

    private static List<String> clusterNodes() {
        List<String> nodes = fieldNames(services).stream()
                .filter(n -> n.matches("redis-node-\\d+"))
                .toList();
        assertEquals(6, nodes.size(), "three masters and three replicas: " + nodes);
        return nodes;
    }

    private static Set<String> declaredVolumes() {
        return new LinkedHashSet<>(fieldNames(composeTree.path("volumes")));
    }

    /** {@code ${NAME:-default}} to its default; any other value as it is. */
    private static String withoutInterpolation(String value) {
        if (value == null) {
            return null;
        }
        Matcher m = Pattern.compile("\\$\\{[A-Za-z_][A-Za-z0-9_]*:?-([^}]*)}").matcher(value);
        return m.matches() ? m.group(1) : value;
    }

    /** A service's environment, from either the map or the list ({@code NAME=value}) form. */
    private static Map<String, String> environment(JsonNode service) {
        Map<String, String> env = new LinkedHashMap<>();
        JsonNode node = service.path("environment");
        if (node.isObject()) {
            fields(node).forEach(e -> env.put(e.getKey(), e.getValue().asText()));
        } else if (node.isArray()) {
            for (JsonNode item : node) {
                String s = item.asText();
                int eq = s.indexOf('=');
                env.put(eq < 0 ? s : s.substring(0, eq), eq < 0 ? "" : s.substring(eq + 1));
            }
        }
        return env;
    }

    /** {@code NAME://host:port,...} to name -> host:port. */
    private static Map<String, String> listeners(String spec) {
        assertNotNull(spec, "listener setting missing");
        Map<String, String> out = new LinkedHashMap<>();
        for (String item : spec.split(",")) {
            String[] parts = item.strip().split("://", 2);
            assertEquals(2, parts.length, "not NAME://host:port: " + item);
            out.put(parts[0], parts[1]);
        }
        return out;
    }

    private static String port(String hostPort) {
        return hostPort.substring(hostPort.lastIndexOf(':') + 1);
    }

    private record PublishedPort(String hostIp, String host, String container) {
        @Override
        public String toString() {
            return hostIp + ":" + host + ":" + container;
        }
    }

    /** Short ({@code [ip:]host:container}) and long ({@code target}/{@code published}/{@code host_ip}) syntax. */
    private static List<PublishedPort> publishedPorts(JsonNode service) {
        List<PublishedPort> out = new ArrayList<>();
        for (JsonNode p : service.path("ports")) {
            if (p.isObject()) {
                out.add(new PublishedPort(
                        p.path("host_ip").asText("0.0.0.0"),
                        p.path("published").asText(),
                        p.path("target").asText()));
                continue;
            }
            String[] parts = p.asText().split("/")[0].split(":");
            switch (parts.length) {
                case 3 -> out.add(new PublishedPort(parts[0], parts[1], parts[2]));
                case 2 -> out.add(new PublishedPort("0.0.0.0", parts[0], parts[1]));
                default -> fail("port " + p.asText() + " is not published on the host");
            }
        }
        return out;
    }

    private static boolean hasVolumeAt(JsonNode service, String path) {
        for (JsonNode v : service.path("volumes")) {
            String target =
                    v.isObject() ? v.path("target").asText() : v.asText().split(":")[1];
            if (target.equals(path)) {
                return true;
            }
        }
        return false;
    }

    /** A command in list or string form, split into words. */
    private static List<String> tokens(JsonNode command) {
        List<String> out = new ArrayList<>();
        if (command.isArray()) {
            command.forEach(t -> out.addAll(List.of(t.asText().strip().split("\\s+"))));
        } else if (!command.isMissingNode()) {
            out.addAll(List.of(command.asText().strip().split("\\s+")));
        }
        return out;
    }

    /** The kafka-topics invocation that creates {@code topic}, up to the next command. */
    private static String creation(String script, String topic) {
        Matcher m = Pattern.compile(
                        "--create(?:(?!--create)[^$#])*?--topic " + Pattern.quote(topic) + "(?![\\w.-])[^$#]*")
                .matcher(script);
        assertTrue(m.find(), "the topics service does not create " + topic + ": " + script);
        return m.group();
    }

    private static List<Map.Entry<String, JsonNode>> fields(JsonNode node) {
        return new ArrayList<>(node.properties());
    }

    private static List<String> fieldNames(JsonNode node) {
        return node.properties().stream().map(Map.Entry::getKey).toList();
    }
}

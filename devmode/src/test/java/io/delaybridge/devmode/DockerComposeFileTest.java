package io.delaybridge.devmode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The compose stack in {@code docker/} as plain {@code docker compose up} starts it: that the compose file says what
 * the bridge needs and agrees with {@code bridge/config.yml} (listener ports, topic partitions, variable names), the
 * mistakes that otherwise show up only when someone runs it. Its profiles: {@link DockerComposeProfilesTest}; the
 * image's own file: {@link DockerfileTest}.
 */
class DockerComposeFileTest extends ComposeFileChecks {

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
                    .filter(e -> port(e.getValue()).equals(p.container()))
                    .map(Map.Entry::getKey)
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("published port " + p + " is no listener of " + bound));
            String address = advertised.get(listener);
            assertNotNull(address, "listener " + listener + " is not advertised");
            assertEquals(
                    p.hostIp() + ":" + p.host(),
                    address,
                    "a host client bootstraps on " + p.hostIp() + ":" + p.host()
                            + " and then connects to what listener " + listener
                            + " advertises, so both must be the same");
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
            containerPorts.add(p.container());
            assertEquals("127.0.0.1", p.hostIp(), "publish " + p + " on the host's loopback only");
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
}

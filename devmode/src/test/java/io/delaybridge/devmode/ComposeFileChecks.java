package io.delaybridge.devmode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
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

/**
 * What {@link DockerComposeFileTest} and {@link DockerComposeProfilesTest} read: {@code docker/docker-compose.yml} as
 * Compose reads it, {@code bridge/config.yml}, and the helpers that take services, commands and ports apart.
 *
 * <p>No Docker engine runs on the build machines, so the compose stack cannot be started here; these tests check what
 * can be checked without one. YAML is read with Jackson's YAML module, which reaches this module's classpath through
 * the bridge (Dropwizard reads its configuration with it). It is deliberately not declared here with test scope: a
 * direct test-scoped declaration would override the transitive compile scope and take it off the development mode's
 * runtime classpath.
 */
abstract class ComposeFileChecks {

    static final ObjectMapper YAML = new YAMLMapper();
    static final Pattern CONFIG_VARIABLE = Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*)(?::?-[^}]*)?}");

    static Path repo;
    static String composeText;
    static JsonNode composeTree;
    static JsonNode services;
    static String configText;
    static JsonNode config;

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

    // ---- helpers ------------------------------------------------------------------------------------------------

    /**
     * The compose file as Compose reads it: Jackson's YAML parser leaves aliases ({@code *redis-healthcheck})
     * unresolved, so the document is loaded with SnakeYAML (under Jackson's YAML module) and then turned into a tree.
     */
    static JsonNode withAliasesResolved(String yaml) {
        return YAML.valueToTree(new org.yaml.snakeyaml.Yaml().load(yaml));
    }

    /** {@code --name value} pairs of a command. */
    static Map<String, String> options(List<String> tokens) {
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 0; i < tokens.size(); i++) {
            if (tokens.get(i).startsWith("--") && i + 1 < tokens.size()) {
                options.put(tokens.get(i), tokens.get(i + 1));
            }
        }
        return options;
    }

    static List<String> clusterNodes() {
        List<String> nodes = fieldNames(services).stream()
                .filter(n -> n.matches("redis-node-\\d+"))
                .toList();
        assertEquals(6, nodes.size(), "three masters and three replicas: " + nodes);
        return nodes;
    }

    static Set<String> declaredVolumes() {
        return new LinkedHashSet<>(fieldNames(composeTree.path("volumes")));
    }

    /** {@code ${NAME:-default}} to its default; any other value as it is. */
    static String withoutInterpolation(String value) {
        if (value == null) {
            return null;
        }
        Matcher m = Pattern.compile("\\$\\{[A-Za-z_][A-Za-z0-9_]*:?-([^}]*)}").matcher(value);
        return m.matches() ? m.group(1) : value;
    }

    /** A service's environment, from either the map or the list ({@code NAME=value}) form. */
    static Map<String, String> environment(JsonNode service) {
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
    static Map<String, String> listeners(String spec) {
        assertNotNull(spec, "listener setting missing");
        Map<String, String> out = new LinkedHashMap<>();
        for (String item : spec.split(",")) {
            String[] parts = item.strip().split("://", 2);
            assertEquals(2, parts.length, "not NAME://host:port: " + item);
            out.put(parts[0], parts[1]);
        }
        return out;
    }

    static String port(String hostPort) {
        return hostPort.substring(hostPort.lastIndexOf(':') + 1);
    }

    record PublishedPort(String hostIp, String host, String container) {
        @Override
        public String toString() {
            return hostIp + ":" + host + ":" + container;
        }
    }

    /** Short ({@code [ip:]host:container}) and long ({@code target}/{@code published}/{@code host_ip}) syntax. */
    static List<PublishedPort> publishedPorts(JsonNode service) {
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

    static boolean hasVolumeAt(JsonNode service, String path) {
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
    static List<String> tokens(JsonNode command) {
        List<String> out = new ArrayList<>();
        if (command.isArray()) {
            command.forEach(t -> out.addAll(List.of(t.asText().strip().split("\\s+"))));
        } else if (!command.isMissingNode()) {
            out.addAll(List.of(command.asText().strip().split("\\s+")));
        }
        return out;
    }

    /** The kafka-topics invocation that creates {@code topic}, up to the next command. */
    static String creation(String script, String topic) {
        Matcher m = Pattern.compile(
                        "--create(?:(?!--create)[^$#])*?--topic " + Pattern.quote(topic) + "(?![\\w.-])[^$#]*")
                .matcher(script);
        assertTrue(m.find(), "the topics service does not create " + topic + ": " + script);
        return m.group();
    }

    static List<Map.Entry<String, JsonNode>> fields(JsonNode node) {
        return new ArrayList<>(node.properties());
    }

    static List<String> fieldNames(JsonNode node) {
        return node.properties().stream().map(Map.Entry::getKey).toList();
    }
}

package io.delaybridge.devmode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The compose stack's profiles: {@code --profile cluster} (a Redis Cluster of six nodes, created once they are healthy)
 * and {@code --profile monitoring} (Prometheus with the shipped rules, redis_exporter, Grafana with the shipped
 * dashboard), and that plain {@code up} starts none of their services.
 */
class DockerComposeProfilesTest extends ComposeFileChecks {

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

    /**
     * Prometheus and Grafana report healthy only when they serve (a rule file that does not load stops Prometheus), and
     * Grafana, whose data source is that Prometheus, starts after it; docker/e2e/run.sh waits on these checks.
     */
    @Test
    void prometheusAndGrafanaHaveHealthChecksAndGrafanaWaitsForPrometheus() {
        assertTrue(
                services.path("prometheus")
                        .path("healthcheck")
                        .path("test")
                        .toString()
                        .contains("/-/ready"),
                "prometheus needs a healthcheck on /-/ready");
        assertTrue(
                services.path("grafana")
                        .path("healthcheck")
                        .path("test")
                        .toString()
                        .contains("/api/health"),
                "grafana needs a healthcheck on /api/health");
        assertEquals(
                "service_healthy",
                services.path("grafana")
                        .path("depends_on")
                        .path("prometheus")
                        .path("condition")
                        .asText());
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
}

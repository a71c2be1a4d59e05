package io.delaybridge.testkit;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.utils.AppInfoParser;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.kafka.KafkaContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * The Testcontainers side of {@link RealServers}, kept in its own class so that nothing of Testcontainers is
 * loaded unless a Docker engine may be there. Containers are left to Testcontainers' reaper at JVM exit.
 */
final class ContainerServers {

    /** System property overriding the Kafka image; default {@code apache/kafka:<kafka-clients version>}. */
    static final String KAFKA_IMAGE_PROPERTY = "delaybridge.testkit.kafkaImage";
    /** System property overriding the Redis image; default {@code redis:7}. */
    static final String REDIS_IMAGE_PROPERTY = "delaybridge.testkit.redisImage";

    private ContainerServers() {}

    /**
     * Whether a Docker engine answers. Without any sign of one (no DOCKER_HOST, no Testcontainers settings file,
     * no known socket) this answers false at once without loading Testcontainers; otherwise it asks
     * Testcontainers, giving up after 15 s. Never throws.
     */
    static boolean dockerAvailable() {
        if (!anyDockerHint()) {
            return false;
        }
        try {
            return CompletableFuture.supplyAsync(
                            () -> DockerClientFactory.instance().isDockerAvailable())
                    .get(15, TimeUnit.SECONDS);
        } catch (Throwable t) {
            return false;
        }
    }

    private static boolean anyDockerHint() {
        if (notBlank(System.getenv("DOCKER_HOST")) || notBlank(System.getProperty("docker.host"))) {
            return true;
        }
        String home = System.getProperty("user.home", "");
        List<Path> candidates = new ArrayList<>(List.of(
                Path.of(home, ".testcontainers.properties"),
                Path.of("/var/run/docker.sock"),
                Path.of("/run/docker.sock"),
                Path.of(home, ".docker", "run", "docker.sock"),
                Path.of(home, ".docker", "desktop", "docker.sock")));
        String xdg = System.getenv("XDG_RUNTIME_DIR");
        if (notBlank(xdg)) {
            candidates.add(Path.of(xdg, "docker.sock"));
            candidates.add(Path.of(xdg, ".docker", "run", "docker.sock"));
        }
        return candidates.stream().anyMatch(Files::exists);
    }

    private static boolean notBlank(String s) {
        return s != null && !s.isBlank();
    }

    static String startKafka() {
        String image = System.getProperty(KAFKA_IMAGE_PROPERTY, "apache/kafka:" + AppInfoParser.getVersion());
        KafkaContainer kafka = new KafkaContainer(DockerImageName.parse(image))
                .withEnv("KAFKA_AUTO_CREATE_TOPICS_ENABLE", "false")
                .withEnv("KAFKA_NUM_PARTITIONS", "1")
                .withEnv("KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS", "0");
        kafka.start();
        return kafka.getBootstrapServers();
    }

    static String startRedis() {
        String image = System.getProperty(REDIS_IMAGE_PROPERTY, "redis:7");
        GenericContainer<?> redis = new GenericContainer<>(DockerImageName.parse(image))
                .withExposedPorts(6379)
                .withCommand(
                        "redis-server",
                        "--save",
                        "",
                        "--appendonly",
                        "yes",
                        "--appendfsync",
                        "always",
                        "--maxmemory-policy",
                        "noeviction")
                .waitingFor(Wait.forLogMessage(".*Ready to accept connections.*\\n", 1));
        redis.start();
        return "redis://" + redis.getHost() + ":" + redis.getMappedPort(6379);
    }
}

package io.delaybridge.bridge.e2e;

import static io.delaybridge.bridge.e2e.Http.get;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.RedisCluster;
import io.delaybridge.testkit.RedisServer;
import io.delaybridge.testkit.TestCertificates;
import io.delaybridge.testkit.TestServers;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The least-privilege Redis ACL of docs/security.md, taken from that file as written, is enough to run the bridge:
 * it connects, stores, delivers, answers the API and is healthy, as a user that can touch nothing but its prefix;
 * on a plain port and over TLS with a client certificate, as production runs.
 */
@ExtendWith(RealServersExtension.class)
class RedisAclIT {

    private static final Path SECURITY_MD = Path.of("..", "docs", "security.md");
    private static final String PASSWORD = "acl-test-password-42";

    @Test
    void theDocumentedAclIsEnoughToRunTheBridge(TestServers servers) throws IOException {
        TestNames names = TestNames.unique(servers);
        String user = names.keyPrefix() + "-bridge";
        List<String> rules = documentedAcl(names.keyPrefix(), PASSWORD);

        RedisURI admin = RedisURI.create(servers.redisUri());
        RedisClient client = RedisClient.create(admin);
        try (StatefulRedisConnection<String, String> redis = client.connect()) {
            CommandArgs<String, String> args =
                    new CommandArgs<>(StringCodec.UTF8).add("SETUSER").add(user);
            rules.forEach(args::add);
            assertEquals("OK", redis.sync().dispatch(CommandType.ACL, new StatusOutput<>(StringCodec.UTF8), args));
        } finally {
            client.shutdown();
        }
        assertTrue(servers.redisUri().startsWith("redis://"), servers.redisUri());
        // every feature on: the far tier (in every run) and here exactly once too
        runsAs(
                servers,
                names,
                servers.redisUri().replace("redis://", "redis://" + user + ":" + PASSWORD + "@"),
                TestBridge.set("delivery.exactlyOnce", "true"));
    }

    /**
     * As production runs: a redis-server that speaks TLS only and wants client certificates, the bridge given its
     * CA, certificate and key through redis.tls.* (PEM files), as the ACL user of the document.
     */
    @Test
    void theDocumentedAclIsEnoughOverTlsWithAClientCertificate(TestServers servers, @TempDir Path dir)
            throws IOException {
        TestNames names = TestNames.unique(servers);
        String user = names.keyPrefix() + "-bridge";
        TestCertificates certs = TestCertificates.create(dir.resolve("certs"));
        try (RedisServer redis = RedisServer.startTls(dir.resolve("redis"), certs, List.of())) {
            List<String> command = new ArrayList<>(List.of("ACL", "SETUSER", user));
            command.addAll(documentedAcl(names.keyPrefix(), PASSWORD));
            assertEquals("OK", redis.call(command.toArray(String[]::new)));
            assertTrue(redis.uri().startsWith("rediss://"), redis.uri());
            runsAs(
                    servers,
                    names,
                    redis.uri().replace("rediss://", "rediss://" + user + ":" + PASSWORD + "@"),
                    TestBridge.set("redis.tls.caFile", certs.caFile().toString()),
                    TestBridge.set(
                            "redis.tls.certificateFile",
                            certs.clientCertificate().toString()),
                    TestBridge.set("redis.tls.keyFile", certs.clientKey().toString()));

            assertEquals(List.of(), redis.call("ACL", "LOG"), "commands the ACL refused the bridge");
            List<List<String>> checks = documentedChecks(names.keyPrefix());
            assertTrue(checks.size() >= 5, "the document's check lines: " + checks);
            List<String> cli = List.of(
                    RedisCli.binary(),
                    "--tls",
                    "--cacert",
                    certs.caFile().toString(),
                    "-h",
                    "127.0.0.1",
                    "-p",
                    Integer.toString(redis.port()));
            List<String> asUser = new ArrayList<>(cli);
            asUser.addAll(List.of(
                    "--cert",
                    certs.clientCertificate().toString(),
                    "--key",
                    certs.clientKey().toString(),
                    "--user",
                    user,
                    "--pass",
                    PASSWORD,
                    "--no-auth-warning"));
            for (List<String> check : checks) {
                List<String> line = new ArrayList<>(asUser);
                line.addAll(check.subList(0, check.size() - 1));
                String answer = RedisCli.run(line);
                String expected = check.get(check.size() - 1);
                assertTrue(answer.startsWith(expected), String.join(" ", check) + " answered " + answer);
            }
            List<String> noCertificate = new ArrayList<>(cli);
            noCertificate.add("ping");
            String refused = RedisCli.run(noCertificate);
            assertFalse(refused.contains("PONG"), "without a client certificate: " + refused);
        }
    }

    /**
     * A three-master Redis Cluster with TLS on clients, bus and replication, the user made on every node from the
     * document's two lines (one server, and what a cluster adds).
     */
    @Test
    void theDocumentedAclIsEnoughOnAClusterWithTls(TestServers servers, @TempDir Path dir) throws IOException {
        TestNames names = TestNames.unique(servers);
        String user = names.keyPrefix() + "-bridge";
        TestCertificates certs = TestCertificates.create(dir.resolve("certs"));
        try (RedisCluster cluster = RedisCluster.startTls(dir.resolve("cluster"), 3, 0, certs)) {
            for (RedisServer node : cluster.nodes()) {
                for (int line = 0; line < 2; line++) {
                    List<String> command = new ArrayList<>(List.of("ACL", "SETUSER", user));
                    command.addAll(documentedAcl(names.keyPrefix(), PASSWORD, line));
                    assertEquals("OK", node.call(command.toArray(String[]::new)));
                }
            }
            assertTrue(cluster.uri().startsWith("rediss://"), cluster.uri());
            runsAs(
                    servers,
                    names,
                    cluster.uri().replace("rediss://", "rediss://" + user + ":" + PASSWORD + "@"),
                    TestBridge.set("redis.mode", "cluster"),
                    TestBridge.set("redis.tls.caFile", certs.caFile().toString()),
                    TestBridge.set(
                            "redis.tls.certificateFile",
                            certs.clientCertificate().toString()),
                    TestBridge.set("redis.tls.keyFile", certs.clientKey().toString()));
            for (RedisServer node : cluster.nodes()) {
                Object denied = node.call("ACL", "LOG");
                assertEquals(List.of(), denied, "commands the ACL refused on " + node.port() + ": " + denied);
            }
        }
    }

    /**
     * A bridge on {@code redisUri} stores, delivers, answers the API and is healthy; with a hot window of 0 every
     * record goes through the far tier (written far, thawed, a far id's version, a default id's far drop). With
     * {@code delivery.exactlyOnce} among the overrides, deliveries are in committed shard transactions.
     */
    private static void runsAs(TestServers servers, TestNames names, String redisUri, TestBridge.Setting... tls) {
        String target = names.target("acl");
        List<TestBridge.Setting> overrides = new ArrayList<>(List.of(tls));
        overrides.add(TestBridge.set("intake.hotWindow", "0ms"));
        // redis.uri given once: two overrides of one key apply in no fixed order
        try (KafkaClient kafka = new KafkaClient(servers.kafkaBootstrap());
                TestBridge bridge = new TestBridge(
                                names, servers.kafkaBootstrap(), redisUri, overrides.toArray(TestBridge.Setting[]::new))
                        .start()) {
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> bridge.admin("/healthcheck")
                            .get("far-tier")
                            .get("message")
                            .asText()
                            .startsWith("on: "));
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> get(bridge.adminPort(), "/metrics")
                                    .json()
                                    .path("gauges")
                                    .path("delay.far.enabled")
                                    .path("value")
                                    .asInt()
                            == 1);
            kafka.createTopics(1, target);
            KafkaClient.Collector delivered = kafka.collect(target);
            boolean exactlyOnce =
                    bridge.support().getConfiguration().getDelivery().isExactlyOnce();
            KafkaClient.Collector transactions =
                    exactlyOnce ? kafka.collectCommitted(names.intake() + "-delivered") : null;
            kafka.send(
                    names.intake(),
                    "acl-1",
                    "v",
                    null,
                    DelayHeaders.TARGET,
                    target,
                    DelayHeaders.DELAY_MS,
                    "500",
                    DelayHeaders.ID,
                    "acl-1");
            kafka.send(
                    names.intake(),
                    "acl-2",
                    "v",
                    null,
                    DelayHeaders.TARGET,
                    target,
                    DelayHeaders.DELAY_MS,
                    "2d",
                    DelayHeaders.ID,
                    "acl-2");
            RecordMetadata cancelled = kafka.send(
                    names.intake(), "acl-3", "v", null, DelayHeaders.TARGET, target, DelayHeaders.DELAY_MS, "2h");
            String acl3 = names.intake() + "-" + cancelled.partition() + "-" + cancelled.offset();
            int app = bridge.support().getLocalPort();
            // the cancel after acl-3 was stored far: one in the same intake poll drops it before it is written far
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> get(app, "/messages/" + acl3)
                            .json()
                            .path("state")
                            .asText()
                            .equals("far"));
            kafka.send(names.intake(), "acl-4", null, null, DelayHeaders.CANCEL, acl3);
            await().atMost(Duration.ofSeconds(60)).until(() -> delivered.size() == 1); // far, thawed, delivered
            if (exactlyOnce) {
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> !transactions.received().isEmpty());
            }
            assertEquals("far", get(app, "/messages/acl-2").json().get("state").asText());
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> get(app, "/shards").json().get("far").asInt() == 2); // acl-2, and acl-3 until its hour
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> get(bridge.adminPort(), "/healthcheck").status() == 200);
            JsonNode health = get(bridge.adminPort(), "/healthcheck").json();
            assertTrue(health.get("redis").get("healthy").asBoolean(), health.toString());
            assertTrue(health.get("redis-incarnation").get("healthy").asBoolean(), health.toString());
        }
    }

    /** The first ACL SETUSER line of docs/security.md (one server), its rules only, for this prefix and password. */
    private static List<String> documentedAcl(String prefix, String password) throws IOException {
        return documentedAcl(prefix, password, 0);
    }

    /**
     * The {@code n}th {@code ACL SETUSER delay-bridge} line of docs/security.md (0: one server, 1: what a cluster
     * adds), its rules only, for this test's prefix and password.
     */
    private static List<String> documentedAcl(String prefix, String password, int n) throws IOException {
        String text = Files.readString(SECURITY_MD);
        int start = -1;
        for (int i = 0; i <= n; i++) {
            start = text.indexOf("ACL SETUSER delay-bridge ", start + 1);
            assertTrue(start >= 0, "docs/security.md has no ACL SETUSER line number " + (n + 1));
        }
        int end = text.indexOf("```", start);
        String command = text.substring(start, end).replace("\\\n", " ").strip();
        List<String> words = Arrays.asList(command.split("\\s+"));
        return words.subList(3, words.size()).stream()
                .map(w -> w.replace("dq:*", prefix + ":*").replace(">a-long-secret", ">" + password))
                .toList();
    }

    /** The {@code r ...  # ANSWER} lines of the document's least-privilege check: arguments and expected answer. */
    private static List<List<String>> documentedChecks(String prefix) throws IOException {
        List<List<String>> checks = new ArrayList<>();
        for (String line : Files.readAllLines(SECURITY_MD)) {
            if (line.startsWith("r ") && line.contains("#")) {
                List<String> words = new ArrayList<>(Arrays.asList(line.substring(2, line.indexOf('#'))
                        .strip()
                        .replace("dq:", prefix + ":")
                        .split("\\s+")));
                words.add(line.substring(line.indexOf('#') + 1).strip().split("\\s+")[0]);
                checks.add(words);
            }
        }
        return checks;
    }
}

package io.delaybridge.bridge.e2e;

import static io.delaybridge.bridge.e2e.Http.get;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.delaybridge.bridge.DelayBridgeConfiguration;
import io.delaybridge.bridge.SharedJvm;
import io.delaybridge.bridge.rules.RuleRecords;
import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.testkit.KafkaBroker;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.TestCertificates;
import io.delaybridge.testkit.TestServers;
import io.dropwizard.testing.DropwizardTestSupport;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import javax.management.ObjectName;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The Kafka ACLs of docs/security.md, taken from the document's {@code kafka-acls.sh} lines as written, are enough to
 * run the bridge on a broker that checks every request: a {@code SASL_SSL} listener (SCRAM-SHA-512), the authorizer
 * on, no ACL = denied. Every feature they are for is on and works: the far tier, exactly once, delay rules. A target
 * outside the granted prefix fails alone.
 */
@ExtendWith(RealServersExtension.class)
@Execution(ExecutionMode.CONCURRENT) // its bridges run in this JVM beside other classes
@ResourceLock(value = SharedJvm.LOGGING_AND_THREADS, mode = ResourceAccessMode.READ)
class KafkaAclIT {

    private static final Path SECURITY_MD = Path.of("..", "docs", "security.md");
    private static final String PASSWORD = "scram-test-secret-9b1e";

    /** Operations {@code kafka-acls.sh} accepts per resource type: a line the tool refuses must fail here too. */
    private static final Map<ResourceType, Set<AclOperation>> VALID = Map.of(
            ResourceType.TOPIC,
                    Set.of(
                            AclOperation.READ,
                            AclOperation.WRITE,
                            AclOperation.CREATE,
                            AclOperation.DELETE,
                            AclOperation.ALTER,
                            AclOperation.DESCRIBE,
                            AclOperation.DESCRIBE_CONFIGS,
                            AclOperation.ALTER_CONFIGS),
            ResourceType.GROUP, Set.of(AclOperation.READ, AclOperation.DESCRIBE, AclOperation.DELETE),
            ResourceType.TRANSACTIONAL_ID, Set.of(AclOperation.WRITE, AclOperation.DESCRIBE),
            ResourceType.CLUSTER,
                    Set.of(
                            AclOperation.CREATE,
                            AclOperation.CLUSTER_ACTION,
                            AclOperation.DESCRIBE_CONFIGS,
                            AclOperation.ALTER_CONFIGS,
                            AclOperation.IDEMPOTENT_WRITE,
                            AclOperation.ALTER,
                            AclOperation.DESCRIBE));

    @Test
    void theDocumentedAclsAreEnoughOverSaslSsl(TestServers servers, @TempDir Path dir) throws Exception {
        TestNames names = TestNames.unique(servers);
        String user = names.keyPrefix() + "-bridge";
        String prefix = names.target("orders") + ".";
        String allowed = prefix + "timeout";
        String forbidden = names.target("elsewhere");
        String created = names.target("created"); // a rule's source: outside the targets' prefix
        String paid = names.target("paid");
        TestCertificates certs = TestCertificates.create(dir.resolve("certs"));
        try (KafkaBroker broker = KafkaBroker.startSecured(dir.resolve("broker"), certs);
                KafkaClient admin = new KafkaClient(broker.bootstrapServers())) {
            broker.addScramUser(user, PASSWORD);
            admin.createTopics(4, names.intake());
            admin.createTopics(1, names.deadletter(), allowed, forbidden, created, paid);
            List<AclBinding> acls = documentedAcls(user, names, prefix, created, paid);
            assertEquals(26, acls.size(), "the document's lines, one binding per resource and operation: " + acls);
            try (Admin kafkaAdmin =
                    Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
                kafkaAdmin.createAcls(acls).all().get(30, TimeUnit.SECONDS);
                assertEquals(
                        Set.copyOf(acls),
                        Set.copyOf(kafkaAdmin
                                .describeAcls(AclBindingFilter.ANY)
                                .values()
                                .get(30, TimeUnit.SECONDS)),
                        "exactly the documented ACLs");
            }

            KafkaClient.Collector delivered = admin.collect(allowed);
            KafkaClient.Collector deadletters = admin.collect(names.deadletter());
            // every feature the document's lines are for: the far tier here, exactly once below
            try (TestBridge bridge = new TestBridge(
                            names,
                            broker.saslBootstrapServers(),
                            servers.redisUri(),
                            with(secured(user, PASSWORD, certs), TestBridge.set("intake.hotWindow", "10m")))
                    .start()) {
                // DescribeConfigs on the intake: its retention was read, so records due far ahead may wait there
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> get(bridge.adminPort(), "/metrics")
                                        .json()
                                        .path("gauges")
                                        .path("delay.far.enabled")
                                        .path("value")
                                        .asInt()
                                == 1);
                admin.send(
                        names.intake(), "ok-1", "v", null, DelayHeaders.TARGET, allowed, DelayHeaders.DELAY_MS, "300");
                admin.send(
                        names.intake(),
                        "no-1",
                        "v",
                        null,
                        DelayHeaders.TARGET,
                        forbidden,
                        DelayHeaders.DELAY_MS,
                        "300");
                admin.send(
                        names.intake(), "ok-2", "v", null, DelayHeaders.TARGET, allowed, DelayHeaders.DELAY_MS, "600");
                admin.send(
                        names.intake(),
                        "far-1",
                        "v",
                        null,
                        DelayHeaders.TARGET,
                        allowed,
                        DelayHeaders.DELAY_MS,
                        "2d",
                        DelayHeaders.ID,
                        "far-1");
                await().atMost(Duration.ofSeconds(60)).until(() -> delivered.size() == 2 && deadletters.size() == 1);
                int app = bridge.support().getLocalPort();
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> get(app, "/messages/far-1")
                                .json()
                                .path("state")
                                .asText()
                                .equals("far"));
                KafkaClient.Received dead = deadletters.received().get(0);
                assertEquals("no-1", dead.key());
                assertEquals(
                        "DELIVERY_FAILED", dead.header(DelayHeaders.ERROR), dead.header(DelayHeaders.ERROR_MESSAGE));
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> get(bridge.adminPort(), "/healthcheck").status() == 200);
                JsonNode health = get(bridge.adminPort(), "/healthcheck").json();
                assertTrue(health.get("kafka").get("healthy").asBoolean(), health.toString());
                assertTrue(health.get("far-tier").get("message").asText().startsWith("on: "), health.toString());
            }
            // exactly once: the same ACLs let the bridge deliver in shard transactions, each writing the delivered log
            try (TestBridge bridge = new TestBridge(
                            names,
                            broker.saslBootstrapServers(),
                            servers.redisUri(),
                            with(secured(user, PASSWORD, certs), TestBridge.set("delivery.exactlyOnce", "true")))
                    .start()) {
                KafkaClient.Collector transactions = admin.collectCommitted(names.intake() + "-delivered");
                // a target the broker refuses to describe is refused before its send, as with at least once: sent in
                // the shard's transaction, it would abort it and every send beside it, at every retry
                admin.send(
                        names.intake(),
                        "no-2",
                        "v",
                        null,
                        DelayHeaders.TARGET,
                        forbidden,
                        DelayHeaders.DELAY_MS,
                        "300");
                admin.send(
                        names.intake(), "ok-3", "v", null, DelayHeaders.TARGET, allowed, DelayHeaders.DELAY_MS, "300");
                await().atMost(Duration.ofSeconds(60))
                        .until(() -> delivered.received().stream().anyMatch(r -> "ok-3".equals(r.key())));
                await().atMost(Duration.ofSeconds(60)).until(() -> deadletters.size() == 2);
                KafkaClient.Received refused = deadletters.received().get(1);
                assertEquals("no-2", refused.key());
                assertEquals(
                        "DELIVERY_FAILED",
                        refused.header(DelayHeaders.ERROR),
                        refused.header(DelayHeaders.ERROR_MESSAGE));
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> !transactions.received().isEmpty());
            }
            // delay rules: the rule reads its source and writes the intake in its Kafka Streams transactions
            Path rulesConfig = RulesConfig.write(
                    dir.resolve("rules"), names, broker.saslBootstrapServers(), servers.redisUri(), """
                            rules:
                              - name: acl-timeout
                                source: %s
                                target: %s
                                delay: 300ms
                                id: "acl-timeout:{key}"
                            """.formatted(
                                    created, allowed));
            DropwizardTestSupport<DelayBridgeConfiguration> rules =
                    TestBridge.support(rulesConfig.toString(), secured(user, PASSWORD, certs));
            int deadletteredBefore = deadletters.size();
            try {
                rules.before();
                admin.send(created, "order-7", "{}", null);
                await().atMost(Duration.ofSeconds(60))
                        .until(() -> delivered.received().stream().anyMatch(r -> "order-7".equals(r.key())));
                KafkaClient.Received timeout =
                        delivered.matching(r -> "order-7".equals(r.key())).get(0);
                assertEquals("acl-timeout:order-7", timeout.header(DelayHeaders.ID));
                assertEquals("acl-timeout", timeout.header(RuleRecords.RULE_HEADER));
                JsonNode health = get(rules.getAdminPort(), "/healthcheck").json();
                assertTrue(health.get("rule-acl-timeout").get("healthy").asBoolean(), health.toString());
                assertEquals(deadletteredBefore, deadletters.size(), "nothing more deadlettered");
            } finally {
                rules.after();
            }

            TestBridge wrong = new TestBridge(
                    names, broker.saslBootstrapServers(), servers.redisUri(), secured(user, "not-" + PASSWORD, certs));
            IllegalStateException e = assertThrows(IllegalStateException.class, wrong::start);
            try {
                wrong.close();
            } catch (RuntimeException ignored) {
                // it never started
            }
            String why = causes(e);
            assertTrue(why.contains("SaslAuthenticationException"), why);
            assertFalse(why.contains(PASSWORD), why);
            // the failed start closed its admin client: left open, it would retry the broker for as long as the JVM
            // lives, once this test stops the broker
            assertEquals(
                    Set.of(),
                    ManagementFactory.getPlatformMBeanServer()
                            .queryNames(
                                    new ObjectName("kafka.admin.client:type=app-info,id=" + names.group() + "-admin"),
                                    null),
                    "no admin client of the failed start is left open");
        }
    }

    private static TestBridge.Setting[] with(TestBridge.Setting[] overrides, TestBridge.Setting more) {
        TestBridge.Setting[] all = java.util.Arrays.copyOf(overrides, overrides.length + 1);
        all[overrides.length] = more;
        return all;
    }

    private static TestBridge.Setting[] secured(String user, String password, TestCertificates certs) {
        return new TestBridge.Setting[] {
            TestBridge.set("kafka.createTopics", "false"),
            common("security.protocol", "SASL_SSL"),
            common("sasl.mechanism", "SCRAM-SHA-512"),
            common(
                    "sasl.jaas.config",
                    "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + user
                            + "\" password=\"" + password + "\";"),
            common("ssl.truststore.location", certs.trustStore().toString()),
            common("ssl.truststore.type", "PKCS12"),
            common("ssl.truststore.password", certs.password())
        };
    }

    /** {@code kafka.common.<name>}: the dots of a Kafka property name escaped for Dropwizard's override. */
    private static TestBridge.Setting common(String name, String value) {
        return TestBridge.set("kafka.common." + name.replace(".", "\\."), value);
    }

    /** {@code DescribeConfigs} and {@code prefixed}, as kafka-acls.sh takes them, to the enum names. */
    private static String upperSnake(String word) {
        return word.replaceAll("([a-z])([A-Z])", "$1_$2").toUpperCase(java.util.Locale.ROOT);
    }

    private static String causes(Throwable e) {
        StringBuilder text = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            text.append(t.getClass().getSimpleName())
                    .append(": ")
                    .append(t.getMessage())
                    .append('\n');
        }
        return text.toString();
    }

    /**
     * The {@code $ACLS --add ...} lines of docs/security.md as {@code kafka-acls.sh} reads them, with this test's
     * user, topics, group and target prefix in place of the document's.
     */
    static List<AclBinding> documentedAcls(String user, TestNames names, String prefix, String created, String paid)
            throws IOException {
        List<AclBinding> bindings = new ArrayList<>();
        for (String line : Files.readAllLines(SECURITY_MD)) {
            if (!line.startsWith("$ACLS --add ")) {
                continue;
            }
            List<String> words = Arrays.asList(line.strip().split("\\s+"));
            String principal = null;
            PatternType pattern = PatternType.LITERAL;
            List<AclOperation> operations = new ArrayList<>();
            List<ResourcePattern> resources = new ArrayList<>();
            List<String[]> named = new ArrayList<>();
            for (int i = 2; i < words.size(); i++) {
                String word = words.get(i);
                switch (word) {
                    case "--allow-principal" -> principal = words.get(++i).replace("User:delay-bridge", "User:" + user);
                    case "--operation" -> operations.add(AclOperation.valueOf(upperSnake(words.get(++i))));
                    case "--resource-pattern-type" -> pattern = PatternType.valueOf(upperSnake(words.get(++i)));
                    case "--topic" -> named.add(new String[] {"topic", words.get(++i)});
                    case "--group" -> named.add(new String[] {"group", words.get(++i)});
                    case "--transactional-id" -> named.add(new String[] {"transactional-id", words.get(++i)});
                    case "--cluster" ->
                        resources.add(new ResourcePattern(ResourceType.CLUSTER, "kafka-cluster", PatternType.LITERAL));
                    default -> throw new AssertionError("an option this test does not know: " + word + " in " + line);
                }
            }
            for (String[] resource : named) {
                String name = switch (resource[1]) {
                    case "delay-intake" -> names.intake();
                    case "delay-deadletter" -> names.deadletter();
                    case "delay-bridge" -> names.group();
                    case "delay-intake-delivered" -> names.intake() + "-delivered";
                    case "delay-bridge-delay-intake-" -> names.group() + "-" + names.intake() + "-";
                    case "delay-bridge-rules" -> names.group() + "-rules";
                    case "delay-bridge-rules-" -> names.group() + "-rules-";
                    case "orders.created" -> created;
                    case "orders.paid" -> paid;
                    case "orders." -> prefix;
                    default -> throw new AssertionError("a name this test does not map: " + resource[1]);
                };
                ResourceType type = switch (resource[0]) {
                    case "topic" -> ResourceType.TOPIC;
                    case "group" -> ResourceType.GROUP;
                    default -> ResourceType.TRANSACTIONAL_ID;
                };
                resources.add(new ResourcePattern(type, name, pattern));
            }
            assertTrue(principal != null && !operations.isEmpty() && !resources.isEmpty(), line);
            for (ResourcePattern resource : resources) {
                for (AclOperation operation : operations) {
                    assertTrue(
                            VALID.get(resource.resourceType()).contains(operation),
                            "kafka-acls.sh refuses " + operation + " on a " + resource.resourceType() + ": " + line);
                    bindings.add(new AclBinding(
                            resource, new AccessControlEntry(principal, "*", operation, AclPermissionType.ALLOW)));
                }
            }
        }
        return bindings;
    }
}

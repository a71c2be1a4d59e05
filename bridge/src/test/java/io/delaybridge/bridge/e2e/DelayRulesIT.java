package io.delaybridge.bridge.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.codahale.metrics.MetricRegistry;
import io.delaybridge.bridge.DelayBridgeConfiguration;
import io.delaybridge.bridge.SharedJvm;
import io.delaybridge.bridge.rules.RuleRecords;
import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.schemas.ErrorCode;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.TestServers;
import io.dropwizard.testing.DropwizardTestSupport;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Delay rules in the bridge, on the real broker and Redis: the orders example end to end (a timeout two seconds after
 * {@code created} unless {@code paid} came first), delays from a JSON field and from a header, and a record a rule
 * cannot apply deadlettered with its code while the next one is scheduled.
 */
@ExtendWith(RealServersExtension.class)
@Execution(ExecutionMode.CONCURRENT) // its bridges run in this JVM beside other classes
@ResourceLock(value = SharedJvm.LOGGING_AND_THREADS, mode = ResourceAccessMode.READ)
class DelayRulesIT {

    @TempDir
    Path dir;

    @Test
    void ordersTimeOutUnlessPaidFirst(TestServers servers) throws Exception {
        TestNames names = TestNames.unique(servers);
        String created = names.target("orders-created");
        String paid = names.target("orders-paid");
        String timeout = names.target("orders-timeout");
        String json = names.target("json");
        String header = names.target("hdr");
        try (KafkaClient kafka = new KafkaClient(servers.kafkaBootstrap())) {
            kafka.createTopics(2, created, paid, timeout, json, header);
            Path config = RulesConfig.write(dir, names, servers.kafkaBootstrap(), servers.redisUri(), """
                    rules:
                      - name: order-timeout
                        source: %s
                        target: %s
                        delay: 2s
                        id: "order-timeout:{key}"
                      - name: order-paid
                        source: %s
                        cancel: "order-timeout:{key}"
                      - name: from-json
                        source: %s
                        target: %s
                        delayField: payment.timeout
                      - name: from-header
                        source: %s
                        target: %s
                        delayHeader: x-timeout
                        delayFallback: 10s
                    api:
                      token: %s
                    """.formatted(
                            created, timeout, paid, json, timeout, header, timeout, Http.TOKEN));
            DropwizardTestSupport<DelayBridgeConfiguration> bridge = TestBridge.support(config.toString());
            try {
                bridge.before();
                MetricRegistry metrics = bridge.getEnvironment().metrics();
                KafkaClient.Collector timeouts = kafka.collect(timeout);
                KafkaClient.Collector deadletters = kafka.collect(names.deadletter());

                // the rules' first transaction waits for Kafka Streams to start: warm the path up first, so that a
                // payment a moment after its order is read within the two seconds, as it is in steady operation
                kafka.send(created, "warm-up", "{}", null);
                await().atMost(Duration.ofSeconds(60)).until(() -> timeouts.size() == 1);

                // order-1 is paid at once, order-2 and order-3 are not. A payment cancels the timeout if it reaches
                // Redis before the pump claims the timeout (pump.lookAhead before its due time); the way through the
                // rules and the intake is not bounded by the code, and on a loaded machine can take longer than the
                // 2 s delay. So the pump is paused until the cancel has found order-1 pending in the store: what is
                // tested is what a cancel in time does, whatever the machine's speed.
                int adminPort = bridge.getAdminPort();
                assertEquals(
                        200,
                        Http.call("POST", adminPort, "/tasks/pause-pump", null, Http.BEARER)
                                .status());
                RecordMetadata c1 = kafka.send(created, "order-1", "{\"order\":1}", null, "trace", "t-1");
                RecordMetadata c2 = kafka.send(created, "order-2", "{\"order\":2}", null, "trace", "t-2");
                kafka.send(created, "order-3", "{\"order\":3}", null);
                kafka.send(paid, "order-1", "{\"paid\":1}", null);
                await().atMost(Duration.ofSeconds(60))
                        .until(() -> metrics.meter("delay.cancelled").getCount() == 1);
                assertEquals(
                        200,
                        Http.call("POST", adminPort, "/tasks/resume-pump", null, Http.BEARER)
                                .status());

                await().atMost(Duration.ofSeconds(60))
                        .until(() -> timeouts.matching(r -> "order-2".equals(r.key()))
                                                .size()
                                        == 1
                                && timeouts.matching(r -> "order-3".equals(r.key()))
                                                .size()
                                        == 1);
                KafkaClient.Received order2 =
                        timeouts.matching(r -> "order-2".equals(r.key())).get(0);
                assertTrue(
                        order2.receivedAt() >= c2.timestamp() + 2_000,
                        "never early: received " + (order2.receivedAt() - c2.timestamp()) + " ms after orders.created");
                assertEquals("{\"order\":2}", order2.value());
                assertEquals("t-2", order2.header("trace"), "the source's headers travel with it");
                assertEquals("order-timeout:order-2", order2.header(DelayHeaders.ID));
                assertEquals("order-timeout", order2.header(RuleRecords.RULE_HEADER));
                assertEquals(
                        created + "/" + c2.partition() + "/" + c2.offset(), order2.header(RuleRecords.SOURCE_HEADER));
                assertEquals(
                        Long.toString(c2.timestamp() + 2_000),
                        order2.header(DelayHeaders.DUE_AT),
                        "due two seconds after the orders.created record");

                // a payment after the timeout changes nothing; order-4, due after order-1 was, marks the horizon
                kafka.send(paid, "order-2", "{\"paid\":2}", null);
                kafka.send(created, "order-4", "{\"order\":4}", null);
                await().atMost(Duration.ofSeconds(60))
                        .until(() -> !timeouts.matching(r -> "order-4".equals(r.key()))
                                .isEmpty());
                if (!timeouts.matching(r -> "order-1".equals(r.key())).isEmpty()) {
                    throw new AssertionError("order-1 was cancelled in the store (due at " + (c1.timestamp() + 2_000)
                            + "), yet delivered. The intake:\n" + dump(servers.kafkaBootstrap(), names.intake()));
                }
                assertEquals(
                        1, timeouts.matching(r -> "order-2".equals(r.key())).size());
                await().atMost(Duration.ofSeconds(30))
                        .untilAsserted(() -> assertEquals(
                                2,
                                metrics.meter("delay.rules.order-paid.cancelled")
                                        .getCount()));
                await().atMost(Duration.ofSeconds(30))
                        .untilAsserted(() -> assertEquals(
                                5,
                                metrics.meter("delay.rules.order-timeout.scheduled")
                                        .getCount()));

                // delays from a JSON field and from a header; a value that is not JSON is deadlettered, the next goes
                // on
                RecordMetadata j1 = kafka.send(json, "j-1", "{\"payment\":{\"timeout\":\"1s\"}}", null);
                kafka.send(json, "j-bad", "not json", null, "trace", "bad");
                RecordMetadata j2 = kafka.send(json, "j-2", "{\"payment\":{\"timeout\":1500}}", null);
                RecordMetadata h1 = kafka.send(header, "h-1", "plain text", null, "x-timeout", "1200ms");
                await().atMost(Duration.ofSeconds(60))
                        .until(() -> timeouts.matching(r -> List.of("j-1", "j-2", "h-1")
                                                        .contains(r.key()))
                                                .size()
                                        == 3
                                && deadletters.size() == 1);
                assertDueAfter(timeouts, "j-1", j1, 1_000);
                assertDueAfter(timeouts, "j-2", j2, 1_500);
                assertDueAfter(timeouts, "h-1", h1, 1_200);
                KafkaClient.Received bad = deadletters.received().get(0);
                assertEquals("j-bad", bad.key());
                assertEquals("not json", bad.value());
                assertEquals("bad", bad.header("trace"));
                assertEquals(ErrorCode.INVALID_VALUE.name(), bad.header(DelayHeaders.ERROR));
                assertTrue(
                        bad.header(DelayHeaders.ERROR_MESSAGE).startsWith("rule from-json: the value is not JSON"),
                        bad.header(DelayHeaders.ERROR_MESSAGE));
                assertEquals("from-json", bad.header(RuleRecords.RULE_HEADER));
                await().atMost(Duration.ofSeconds(30))
                        .untilAsserted(() -> assertEquals(
                                1,
                                metrics.meter("delay.rules.from-json.rejected").getCount()));
                await().atMost(Duration.ofSeconds(30))
                        .untilAsserted(() -> assertEquals(
                                1,
                                metrics.meter("delay.deadlettered.INVALID_VALUE")
                                        .getCount()));
                assertTrue(bridge.getEnvironment()
                        .healthChecks()
                        .runHealthCheck("rule-order-timeout")
                        .isHealthy());
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> Long.valueOf(0)
                                .equals(metrics.getGauges()
                                        .get("delay.rules.from-json.lag")
                                        .getValue()));
                var summary = new com.fasterxml.jackson.databind.ObjectMapper()
                        .readTree(java.net.http.HttpClient.newHttpClient()
                                .send(
                                        java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:"
                                                        + bridge.getLocalPort() + "/status/summary"))
                                                .build(),
                                        java.net.http.HttpResponse.BodyHandlers.ofString())
                                .body());
                assertEquals(4, summary.get("rules").size(), summary.toString());
                var first = summary.get("rules").get(0);
                assertEquals("order-timeout", first.get("name").asText());
                assertEquals(5, first.get("scheduled").asLong());
                assertEquals(
                        "schedule to " + timeout + " after 2s as order-timeout:{key}",
                        first.get("action").asText());
            } finally {
                bridge.after();
            }
        }
    }

    private static String dump(String bootstrap, String topic) {
        java.util.Properties p = new java.util.Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("isolation.level", "read_committed");
        StringBuilder out = new StringBuilder();
        try (var consumer = new org.apache.kafka.clients.consumer.KafkaConsumer<>(
                p,
                new org.apache.kafka.common.serialization.StringDeserializer(),
                new org.apache.kafka.common.serialization.StringDeserializer())) {
            var parts = consumer.partitionsFor(topic).stream()
                    .map(i -> new org.apache.kafka.common.TopicPartition(topic, i.partition()))
                    .toList();
            consumer.assign(parts);
            consumer.seekToBeginning(parts);
            for (int i = 0; i < 20; i++) {
                for (var r : consumer.poll(Duration.ofMillis(200))) {
                    out.append(r.partition())
                            .append('/')
                            .append(r.offset())
                            .append(" ts=")
                            .append(r.timestamp())
                            .append(" key=")
                            .append(r.key());
                    r.headers()
                            .forEach(h -> out.append(' ')
                                    .append(h.key())
                                    .append('=')
                                    .append(new String(h.value(), java.nio.charset.StandardCharsets.UTF_8)));
                    out.append('\n');
                }
            }
        }
        return out.toString();
    }

    private static void assertDueAfter(KafkaClient.Collector c, String key, RecordMetadata source, long delay) {
        KafkaClient.Received r = c.matching(x -> key.equals(x.key())).get(0);
        assertEquals(Long.toString(source.timestamp() + delay), r.header(DelayHeaders.DUE_AT), key);
        assertTrue(r.receivedAt() >= source.timestamp() + delay, key + " early");
    }
}

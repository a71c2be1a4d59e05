package io.delaybridge.connectors.spring.bootapp;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.connectors.spring.DelayBridgeErrorHandler;
import io.delaybridge.connectors.spring.RetryHeaders;
import io.delaybridge.connectors.spring.RetryServersAccess;
import io.delaybridge.connectors.spring.bootapp.OrdersApplication.OrderListener;
import io.delaybridge.connectors.spring.bootapp.OrdersApplication.Reception;
import io.delaybridge.schemas.DelayHeaders;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.SpringVersion;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.AbstractMessageListenerContainer;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.kafka.support.KafkaHeaders;

/**
 * A Spring Boot application configured by {@code application.yml} alone (Boot's Kafka auto-configuration and ours),
 * against a real broker and a real bridge, on whichever Spring Boot line the test run has (3.5, 4.0 or 4.1).
 */
class SpringBootRetryIT {

    private static final int PARTITIONS = 3;
    private static final int FLAKY = 20;
    private static final int FAILING = 10;
    private static final int INVALID = 5;

    /**
     * 20 orders that fail twice then succeed, 10 that always fail, 5 not retryable, on a topic of 3 partitions,
     * each written to another partition than the Java client's hash of its key would pick (as a librdkafka client
     * writes them): every retry comes back on its original partition at its back-off, failing orders reach the
     * dead-letter topic once with Spring's original-* headers naming the original record, not-retryable ones at
     * once, and no topic is made but the dead-letter topic.
     */
    @Test
    void anApplicationConfiguredByApplicationYmlRetriesThroughTheBridge() throws Exception {
        String topic = RetryServersAccess.unique("boot-orders");
        RetryServersAccess.createTopics(PARTITIONS, topic);
        try (ConfigurableApplicationContext app = start(topic)) {
            var handler = app.getBean(DelayBridgeErrorHandler.class);
            List<MessageListenerContainer> containers = new java.util.ArrayList<>(
                    app.getBean(KafkaListenerEndpointRegistry.class).getListenerContainers());
            assertEquals(1, containers.size(), "the application's one @KafkaListener");
            assertEquals(
                    handler,
                    ((AbstractMessageListenerContainer<?, ?>) containers.get(0)).getCommonErrorHandler(),
                    "Boot's container factory uses the auto-configured handler");

            @SuppressWarnings("unchecked")
            KafkaTemplate<String, String> template = app.getBean(KafkaTemplate.class);
            Map<String, RecordMetadata> originals = new HashMap<>();
            List<String> keys = new java.util.ArrayList<>();
            for (int i = 0; i < FLAKY; i++) {
                keys.add("flaky-" + i);
            }
            for (int i = 0; i < FAILING; i++) {
                keys.add("failing-" + i);
            }
            for (int i = 0; i < INVALID; i++) {
                keys.add("invalid-" + i);
            }
            for (String key : keys) {
                originals.put(
                        key,
                        template.send(new ProducerRecord<>(
                                        topic, notJavasPartition(key), key, "{\"order\":\"" + key + "\"}"))
                                .get()
                                .getRecordMetadata());
            }
            OrderListener listener = app.getBean(OrderListener.class);

            await().atMost(Duration.ofSeconds(60))
                    .until(() -> keys.stream()
                            .filter(k -> !k.startsWith("invalid-"))
                            .allMatch(k -> listener.receptions(k).size() >= 3));
            List<Long> lateness = new java.util.ArrayList<>();
            List<Long> bridgeShare = new java.util.ArrayList<>();
            for (String key : keys) {
                if (key.startsWith("invalid-")) {
                    continue;
                }
                List<Reception> got = listener.receptions(key);
                RecordMetadata original = originals.get(key);
                for (int n = 1; n < 3; n++) {
                    ConsumerRecord<String, String> retry = got.get(n).record();
                    assertEquals(Integer.toString(n + 1), header(retry, RetryHeaders.ATTEMPT), key);
                    assertEquals(original.partition(), retry.partition(), key + ": back on its original partition");
                    long waited = got.get(n).receivedAt() - got.get(n - 1).receivedAt();
                    long backOff = n == 1 ? 300 : 600;
                    assertTrue(
                            waited >= backOff, key + ": delivery " + (n + 1) + " after " + waited + " ms < " + backOff);
                    long due = Long.parseLong(header(retry, DelayHeaders.DUE_AT));
                    assertTrue(got.get(n).receivedAt() >= due, key + ": received before its due time");
                    lateness.add(got.get(n).receivedAt() - due);
                    bridgeShare.add(retry.timestamp() - due); // the bridge's producer stamps its send time
                }
            }

            String dlt = topic + "-dlt";
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> RetryServersAccess.readAll(dlt).size() >= FAILING + INVALID);
            List<ConsumerRecord<String, String>> dead = RetryServersAccess.readAll(dlt);
            assertEquals(FAILING + INVALID, dead.size(), "each failing or invalid order dead-lettered once");
            for (ConsumerRecord<String, String> d : dead) {
                RecordMetadata original = originals.get(d.key());
                boolean invalid = d.key().startsWith("invalid-");
                assertTrue(invalid || d.key().startsWith("failing-"), d.key());
                assertEquals(original.partition(), d.partition(), d.key() + ": the original's partition");
                assertEquals(topic, header(d, KafkaHeaders.DLT_ORIGINAL_TOPIC));
                assertEquals(original.partition(), intHeader(d, KafkaHeaders.DLT_ORIGINAL_PARTITION), d.key());
                assertEquals(original.offset(), longHeader(d, KafkaHeaders.DLT_ORIGINAL_OFFSET), d.key());
                assertEquals(original.timestamp(), longHeader(d, KafkaHeaders.DLT_ORIGINAL_TIMESTAMP), d.key());
                assertEquals(invalid ? "1" : "3", header(d, RetryHeaders.ATTEMPT), d.key());
                ConsumerRecord<String, String> last =
                        listener.receptions(d.key()).get(invalid ? 0 : 2).record();
                assertEquals(
                        topic + "/" + last.partition() + "/" + last.offset(), header(d, RetryHeaders.LAST), d.key());
                assertEquals(
                        (invalid ? InvalidOrder.class : IllegalStateException.class).getName(),
                        header(d, KafkaHeaders.DLT_EXCEPTION_CAUSE_FQCN));
            }
            for (int i = 0; i < INVALID; i++) {
                assertEquals(1, listener.receptions("invalid-" + i).size(), "not retried");
            }
            assertTrue(
                    RetryServersAccess.readAll(RetryServersAccess.intake()).stream()
                            .noneMatch(r -> r.key() != null
                                    && r.key().startsWith("invalid-")
                                    && topic.equals(header(r, DelayHeaders.TARGET))),
                    "a not-retryable order is never sent to the intake");
            Set<String> made = RetryServersAccess.topics().stream()
                    .filter(t -> t.startsWith(topic))
                    .collect(Collectors.toCollection(TreeSet::new));
            assertEquals(new TreeSet<>(Set.of(topic, dlt)), made, "no topic but the dead-letter topic is made");
            assertEquals(PARTITIONS, RetryServersAccess.partitions(dlt), "created with the partitions of " + topic);

            Collections.sort(lateness);
            Collections.sort(bridgeShare);
            System.out.println("[SpringBootRetryIT] " + SpringVersion.getVersion() + " / spring-kafka "
                    + KafkaTemplate.class.getPackage().getImplementationVersion() + ": " + FLAKY + " flaky x3, "
                    + FAILING + " failing -> " + dlt + " once, " + INVALID + " invalid at once; retries "
                    + lateness.size() + ", lateness p50 " + lateness.get(lateness.size() / 2) + " ms, max "
                    + lateness.get(lateness.size() - 1) + " ms (the bridge's share p50 "
                    + bridgeShare.get(bridgeShare.size() / 2) + " ms); all on their original partitions");
        }
    }

    /** A partition other than the one Kafka's Java client (murmur2) would choose for {@code key}. */
    private static int notJavasPartition(String key) {
        int java = Utils.toPositive(Utils.murmur2(key.getBytes(StandardCharsets.UTF_8))) % PARTITIONS;
        return (java + 1) % PARTITIONS;
    }

    private static int intHeader(ConsumerRecord<?, ?> record, String name) {
        return ByteBuffer.wrap(record.headers().lastHeader(name).value()).getInt();
    }

    private static long longHeader(ConsumerRecord<?, ?> record, String name) {
        return ByteBuffer.wrap(record.headers().lastHeader(name).value()).getLong();
    }

    @Test
    void aBadSettingStopsTheApplicationNamingTheKeyAndTheValue() {
        Exception e = assertThrows(
                Exception.class,
                () -> start(RetryServersAccess.unique("boot-bad"), "--delay-bridge.retry.attempts=0")
                        .close());
        Throwable root = e;
        while (root.getCause() != null && !(root instanceof IllegalArgumentException)) {
            root = root.getCause();
        }
        assertInstanceOf(IllegalArgumentException.class, root, e.toString());
        assertTrue(
                root.getMessage()
                        .startsWith("delay-bridge.retry.attempts: 0 is refused: attempts 0 must be 1 or" + " more"),
                root.getMessage());
    }

    private static ConfigurableApplicationContext start(String topic, String... more) {
        List<String> args = new java.util.ArrayList<>(List.of(
                "--spring.config.location=classpath:/boot-retry/application.yml",
                "--app.kafka=" + RetryServersAccess.bootstrap(),
                "--app.intake=" + RetryServersAccess.intake(),
                "--app.topic=" + topic,
                "--app.group=" + topic + "-group"));
        args.addAll(List.of(more));
        return new SpringApplicationBuilder(OrdersApplication.class).run(args.toArray(String[]::new));
    }

    private static String header(ConsumerRecord<?, ?> record, String name) {
        Header h = record.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }
}

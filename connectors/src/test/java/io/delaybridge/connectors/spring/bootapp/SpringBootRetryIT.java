package io.delaybridge.connectors.spring.bootapp;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.connectors.spring.DelayBridgeErrorHandler;
import io.delaybridge.connectors.spring.RetryHeaders;
import io.delaybridge.connectors.spring.RetryServersAccess;
import io.delaybridge.connectors.spring.bootapp.OrdersApplication.OrderListener;
import io.delaybridge.connectors.spring.bootapp.OrdersApplication.Reception;
import io.delaybridge.schemas.DelayHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.kafka.support.KafkaHeaders;

/**
 * A Spring Boot application configured by {@code application.yml} alone (Boot's Kafka auto-configuration and ours),
 * against a real broker and a real bridge: blocking tries, then a delayed retry, then success; a not-retryable
 * exception straight to the dead-letter topic.
 */
class SpringBootRetryIT {

    @Test
    void anApplicationConfiguredByApplicationYmlRetriesThroughTheBridge() throws Exception {
        String topic = RetryServersAccess.unique("boot-orders");
        RetryServersAccess.createTopics(topic);
        try (ConfigurableApplicationContext app = start(topic)) {
            var handler = app.getBean(DelayBridgeErrorHandler.class);
            for (MessageListenerContainer c :
                    app.getBean(KafkaListenerEndpointRegistry.class).getListenerContainers()) {
                assertTrue(c.getContainerProperties() != null);
                assertEquals(
                        handler,
                        ((org.springframework.kafka.listener.AbstractMessageListenerContainer<?, ?>)
                                        ((org.springframework.kafka.listener.ConcurrentMessageListenerContainer<?, ?>)
                                                        c)
                                                .getContainers()
                                                .get(0))
                                .getCommonErrorHandler(),
                        "Boot's container factory uses the auto-configured handler");
            }
            @SuppressWarnings("unchecked")
            KafkaTemplate<String, String> template = app.getBean(KafkaTemplate.class);
            template.send(topic, "flaky-1", "{\"order\":1}").get();
            template.send(topic, "invalid-2", "{\"order\":2}").get();
            OrderListener listener = app.getBean(OrderListener.class);

            await().atMost(Duration.ofSeconds(30))
                    .until(() -> listener.receptions("flaky-1").size() >= 3);
            List<Reception> flaky = listener.receptions("flaky-1");
            assertNull(header(flaky.get(1).record(), RetryHeaders.ATTEMPT), "2nd: a blocking retry");
            assertEquals("2", header(flaky.get(2).record(), RetryHeaders.ATTEMPT), "3rd: through the bridge");
            long waited = flaky.get(2).receivedAt() - flaky.get(1).receivedAt();
            assertTrue(waited >= 300, "the delayed retry came after " + waited + " ms, before its back-off of 300 ms");
            long due = Long.parseLong(header(flaky.get(2).record(), DelayHeaders.DUE_AT));
            assertTrue(flaky.get(2).receivedAt() >= due, "received before its due time");
            System.out.println("[SpringBootRetryIT] blocking retry after "
                    + (flaky.get(1).receivedAt() - flaky.get(0).receivedAt()) + " ms, delayed retry after " + waited
                    + " ms (back-off 300 ms),"
                    + " lateness " + (flaky.get(2).receivedAt() - due) + " ms");

            List<ConsumerRecord<String, String>> dead =
                    RetryServersAccess.awaitRecords(topic + "-dlt", Duration.ofSeconds(30));
            assertEquals(1, dead.size());
            assertEquals("invalid-2", dead.get(0).key());
            assertEquals(InvalidOrder.class.getName(), header(dead.get(0), KafkaHeaders.DLT_EXCEPTION_CAUSE_FQCN));
            assertEquals("1", header(dead.get(0), RetryHeaders.ATTEMPT));
            assertEquals(1, listener.receptions("invalid-2").size(), "not retried, not even blocking");
        }
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

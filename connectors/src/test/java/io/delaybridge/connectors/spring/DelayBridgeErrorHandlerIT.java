package io.delaybridge.connectors.spring;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.connectors.spring.Receptions.Reception;
import io.delaybridge.schemas.DelayHeaders;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.kafka.config.ConcurrentKafkaListenerContainerFactory;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.ConcurrentMessageListenerContainer;
import org.springframework.kafka.listener.MessageListener;
import org.springframework.kafka.support.KafkaHeaders;

/**
 * A real Spring Kafka listener container with {@link DelayBridgeErrorHandler}, a real broker and a real bridge
 * ({@link RetryServers}): retries come back at their back-off, never early; dead letters carry Spring's headers;
 * and no topic but the dead-letter topic is created, where {@code @RetryableTopic} creates one per delay.
 */
class DelayBridgeErrorHandlerIT {

    private static RetryServers servers;

    private final List<AutoCloseable> resources = new ArrayList<>();

    @BeforeAll
    static void startServers() {
        servers = RetryServers.get();
    }

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable r : resources) {
            r.close();
        }
    }

    @Test
    void aListenerFailingTwiceReceivesTheRecordThreeTimesEachAtItsBackOff() {
        String topic = unique("orders");
        servers.createTopics(topic);
        Receptions got = new Receptions();
        listen(
                topic,
                DelayBridgeErrorHandler.builder(template())
                        .intakeTopic(RetryServers.INTAKE)
                        .backOff(RetryBackOff.exponential(Duration.ofMillis(500), 2.0, Duration.ofSeconds(10)))
                        .attempts(3)
                        .build(),
                record -> {
                    got.add(record);
                    if (got.size() <= 2) {
                        throw new IllegalStateException("payment service unavailable");
                    }
                });
        send(topic, "order-42", "{\"order\":42}", "trace-id", "7f3a");

        await().atMost(Duration.ofSeconds(30)).until(() -> got.size() >= 3);
        List<Reception> r = got.all();
        long[] backOffs = {0, 500, 1000};
        List<Long> lateness = new ArrayList<>();
        String origin = topic + "/0/" + r.get(0).record().offset();
        for (int i = 0; i < 3; i++) {
            ConsumerRecord<String, String> rec = r.get(i).record();
            assertEquals("order-42", rec.key());
            assertEquals("{\"order\":42}", rec.value());
            assertEquals("7f3a", r.get(i).header("trace-id"), "user header kept");
            if (i == 0) {
                continue;
            }
            assertEquals(Integer.toString(i + 1), r.get(i).header(RetryHeaders.ATTEMPT));
            assertEquals(origin, r.get(i).header(RetryHeaders.ORIGIN));
            assertEquals(
                    topic + "-0-" + r.get(0).record().offset() + "-retry-" + (i + 1),
                    r.get(i).header(DelayHeaders.ID),
                    "id from the first failure's position and the attempt");
            long due = Long.parseLong(r.get(i).header(DelayHeaders.DUE_AT));
            long sincePrevious = r.get(i).receivedAt() - r.get(i - 1).receivedAt();
            // never early: the intake record's broker timestamp is after the failure, due = that + the back-off
            assertTrue(
                    sincePrevious >= backOffs[i],
                    "retry " + i + " came " + sincePrevious + " ms after the failure," + " before its back-off of "
                            + backOffs[i] + " ms");
            assertTrue(r.get(i).receivedAt() >= due, "received before its due time");
            lateness.add(r.get(i).receivedAt() - due);
        }
        System.out.println("[DelayBridgeErrorHandlerIT] fails twice, back-off 500 ms then 1000 ms: 3 receptions,"
                + " retry lateness " + lateness + " ms (reception - due time)");
        // the third reception succeeded: no fourth. One sent by mistake would be due the next back-off (2 s) after it,
        // so the window is longer than that
        await().during(Duration.ofMillis(3_000)).atMost(Duration.ofSeconds(5)).until(() -> got.size() == 3);
    }

    @Test
    void anAlwaysFailingListenerEndsInTheDeadLetterTopicAndOnlyThatTopicIsCreatedUnlikeRetryableTopic()
            throws Exception {
        String topic = unique("payments");
        servers.createTopics(topic);
        Set<String> before = servers.topics();
        Receptions got = new Receptions();
        listen(
                topic,
                DelayBridgeErrorHandler.builder(template())
                        .intakeTopic(RetryServers.INTAKE)
                        .blockingRetries(1, Duration.ofMillis(50)) // 2 quick tries per delivery, then the bridge
                        .backOff(RetryBackOff.of(Duration.ofMillis(500), Duration.ofMillis(1000)))
                        .attempts(3)
                        .build(),
                record -> {
                    got.add(record);
                    throw new IllegalStateException("card declined for " + record.key());
                });
        send(topic, "payment-7", "{\"payment\":7}", "trace-id", "a1");

        List<ConsumerRecord<String, String>> dead =
                Receptions.awaitRecords(servers.bootstrap(), topic + "-dlt", rec -> true, Duration.ofSeconds(30));
        assertEquals(1, dead.size(), "one dead letter");
        ConsumerRecord<String, String> dlt = dead.get(0);
        assertEquals("payment-7", dlt.key());
        assertEquals("{\"payment\":7}", dlt.value());
        assertEquals("a1", Receptions.header(dlt, "trace-id"));
        assertEquals("3", Receptions.header(dlt, RetryHeaders.ATTEMPT), "deliveries made");
        assertEquals(topic, Receptions.header(dlt, KafkaHeaders.DLT_ORIGINAL_TOPIC));
        assertEquals(
                IllegalStateException.class.getName(), Receptions.header(dlt, KafkaHeaders.DLT_EXCEPTION_CAUSE_FQCN));
        assertTrue(
                Receptions.header(dlt, KafkaHeaders.DLT_EXCEPTION_MESSAGE).contains("card declined for payment-7"),
                Receptions.header(dlt, KafkaHeaders.DLT_EXCEPTION_MESSAGE));
        assertNotNull(Receptions.header(dlt, KafkaHeaders.DLT_EXCEPTION_STACKTRACE));
        assertEquals(6, got.size(), "3 deliveries of 2 quick tries each: " + attempts(got));
        assertEquals(List.of("1", "1", "2", "2", "3", "3"), attempts(got));

        Set<String> created = new TreeSet<>(servers.topics());
        created.removeAll(before);
        assertEquals(Set.of(topic + "-dlt"), created, "the bridge's handler creates no topic but the dead-letter one");

        // the same scenario under @RetryableTopic, on the same broker
        String rtTopic = unique("payments-rt");
        servers.createTopics(rtTopic);
        Set<String> rtBefore = servers.topics();
        RetryableTopicApp.RECEPTIONS.set(0);
        RetryableTopicApp.DEAD_LETTERS.set(0);
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
            context.getEnvironment()
                    .getPropertySources()
                    .addFirst(new MapPropertySource(
                            "test",
                            Map.of(
                                    "test.bootstrap",
                                    servers.bootstrap(),
                                    "test.topic",
                                    rtTopic,
                                    "test.group",
                                    unique("rt-group"))));
            context.register(RetryableTopicApp.class);
            context.refresh();
            await().atMost(Duration.ofSeconds(30)).until(() -> RetryableTopicApp.DEAD_LETTERS.get() == 1);
            assertEquals(3, RetryableTopicApp.RECEPTIONS.get(), "@RetryableTopic made 3 attempts");
        }
        Set<String> rtCreated = new TreeSet<>(servers.topics());
        rtCreated.removeAll(rtBefore);
        // Spring Kafka 4 makes a topic per delay (-retry-500, -retry-1000), 3.3 one -retry topic for them all
        assertTrue(rtCreated.contains(rtTopic + "-dlt"), rtCreated.toString());
        assertTrue(rtCreated.stream().anyMatch(t -> t.startsWith(rtTopic + "-retry")), rtCreated.toString());
        assertTrue(rtCreated.size() > created.size(), "@RetryableTopic makes more topics: " + rtCreated);
        System.out.println("[DelayBridgeErrorHandlerIT] 3 attempts, back-off 500 ms then 1000 ms: topics created"
                + " through the bridge " + created.size() + " " + created + " (plus the one intake all listeners"
                + " share); under @RetryableTopic " + rtCreated.size() + " " + rtCreated);
    }

    @Test
    void aNotRetryableExceptionGoesToTheDeadLetterTopicAtOnce() {
        String topic = unique("refunds");
        servers.createTopics(topic);
        Receptions got = new Receptions();
        listen(
                topic,
                DelayBridgeErrorHandler.builder(template())
                        .intakeTopic(RetryServers.INTAKE)
                        .blockingRetries(2, Duration.ofMillis(50))
                        .backOff(RetryBackOff.fixed(Duration.ofMillis(200)))
                        .attempts(5)
                        .notRetryable(InvalidRefund.class)
                        .build(),
                record -> {
                    got.add(record);
                    throw new InvalidRefund("refund " + record.key() + " has no amount");
                });
        String key = "refund-" + UUID.randomUUID();
        send(topic, key, "{}", "trace-id", "b2");

        List<ConsumerRecord<String, String>> dead =
                Receptions.awaitRecords(servers.bootstrap(), topic + "-dlt", rec -> true, Duration.ofSeconds(30));
        assertEquals(1, got.size(), "no blocking and no delayed retry");
        assertEquals("1", Receptions.header(dead.get(0), RetryHeaders.ATTEMPT));
        assertEquals(
                InvalidRefund.class.getName(), Receptions.header(dead.get(0), KafkaHeaders.DLT_EXCEPTION_CAUSE_FQCN));
        assertEquals(
                List.of(),
                Receptions.readAll(servers.bootstrap(), RetryServers.INTAKE, rec -> key.equals(rec.key())),
                "nothing sent to the intake");
    }

    @Test
    void retriesCanGoToARetryTopicTheListenerAlsoReadsAndDeadLettersKeepTheOriginalTopicsName() {
        String topic = unique("invoices");
        String retryTopic = topic + "-retry";
        servers.createTopics(topic, retryTopic);
        Receptions got = new Receptions();
        listen(
                List.of(topic, retryTopic),
                DelayBridgeErrorHandler.builder(template())
                        .intakeTopic(RetryServers.INTAKE)
                        .retryTopic(retryTopic)
                        .backOff(RetryBackOff.fixed(Duration.ofMillis(300)))
                        .attempts(2)
                        .build(),
                record -> {
                    got.add(record);
                    throw new IllegalStateException("ledger locked");
                });
        send(topic, "invoice-3", "{\"invoice\":3}", "trace-id", "c3");

        List<ConsumerRecord<String, String>> dead =
                Receptions.awaitRecords(servers.bootstrap(), topic + "-dlt", rec -> true, Duration.ofSeconds(30));
        assertEquals(
                List.of(topic, retryTopic),
                got.all().stream().map(r -> r.record().topic()).toList());
        assertEquals("2", Receptions.header(dead.get(0), RetryHeaders.ATTEMPT));
        assertEquals(
                topic,
                Receptions.header(dead.get(0), KafkaHeaders.DLT_ORIGINAL_TOPIC),
                "Spring's header names the original record's topic");
        assertEquals(
                topic + "/0/" + got.all().get(0).record().offset(),
                Receptions.header(dead.get(0), RetryHeaders.ORIGIN),
                "ours the first delivery");
        ConsumerRecord<String, String> last = got.all().get(1).record();
        assertEquals(
                retryTopic + "/" + last.partition() + "/" + last.offset(),
                Receptions.header(dead.get(0), RetryHeaders.LAST),
                "and the last one");
        assertTrue(!servers.topics().contains(retryTopic + "-dlt"), "no dead-letter topic for the retry topic");
    }

    static final class InvalidRefund extends RuntimeException {
        InvalidRefund(String message) {
            super(message);
        }
    }

    private static List<String> attempts(Receptions got) {
        return got.all().stream()
                .map(r -> r.header(RetryHeaders.ATTEMPT) == null ? "1" : r.header(RetryHeaders.ATTEMPT))
                .toList();
    }

    private void listen(
            String topic,
            DelayBridgeErrorHandler handler,
            java.util.function.Consumer<ConsumerRecord<String, String>> body) {
        listen(List.of(topic), handler, body);
    }

    private void listen(
            List<String> topics,
            DelayBridgeErrorHandler handler,
            java.util.function.Consumer<ConsumerRecord<String, String>> body) {
        var factory = new ConcurrentKafkaListenerContainerFactory<String, String>();
        factory.setConsumerFactory(new DefaultKafkaConsumerFactory<>(
                Map.of(
                        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, servers.bootstrap(),
                        ConsumerConfig.GROUP_ID_CONFIG, unique("group"),
                        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"),
                new StringDeserializer(),
                new StringDeserializer()));
        factory.setCommonErrorHandler(handler);
        ConcurrentMessageListenerContainer<String, String> container =
                factory.createContainer(topics.toArray(String[]::new));
        container.setupMessageListener((MessageListener<String, String>) body::accept);
        container.start();
        resources.add(container::stop);
    }

    private KafkaTemplate<String, String> template() {
        var factory = new DefaultKafkaProducerFactory<String, String>(
                Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, servers.bootstrap(), ProducerConfig.ACKS_CONFIG, "all"),
                new StringSerializer(),
                new StringSerializer());
        resources.add(factory::destroy);
        return new KafkaTemplate<>(factory);
    }

    private void send(String topic, String key, String value, String header, String headerValue) {
        ProducerRecord<String, String> record = new ProducerRecord<>(topic, key, value);
        record.headers().add(header, headerValue.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        try {
            template().send(record).get();
        } catch (Exception e) {
            throw new IllegalStateException("send to " + topic + " failed", e);
        }
    }

    private static String unique(String name) {
        return RetryServers.unique(name);
    }
}

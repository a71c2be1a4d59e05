package io.delaybridge.connectors.spring;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.connectors.spring.Receptions.Reception;
import io.delaybridge.schemas.DelayHeaders;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.kafka.config.ConcurrentKafkaListenerContainerFactory;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.ConcurrentMessageListenerContainer;
import org.springframework.kafka.listener.ConsumerAwareRecordRecoverer;
import org.springframework.kafka.listener.DefaultAfterRollbackProcessor;
import org.springframework.kafka.listener.MessageListener;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.kafka.transaction.KafkaTransactionManager;
import org.springframework.util.backoff.FixedBackOff;

/**
 * The exactly-once recipe of {@link DelayBridgeErrorHandler}'s Javadoc, run for real: a transactional listener
 * container (a {@link KafkaTransactionManager} on a transactional producer factory, {@code read_committed}
 * consumer) whose {@link DefaultAfterRollbackProcessor} gets {@link DelayBridgeErrorHandler.Builder#buildRecoverer()}
 * with {@code commitRecovered}. Servers as in {@link DelayBridgeErrorHandlerIT} ({@link RetryServers}).
 *
 * <p>What it shows: the retry's send to the intake and the failed record's offset commit are one transaction. A
 * crash after the send and before the commit leaves the retry aborted (a {@code read_committed} reader of the
 * intake, as the bridge is, never sees it) and the record uncommitted; after the restart the record fails again and
 * its retry commits once, comes back at its back-off, never early; after the last attempt it is dead-lettered once.
 */
class ExactlyOnceRetryIT {

    private static final Duration BACK_OFF = Duration.ofMillis(500);

    private static RetryServers servers;

    private final List<AutoCloseable> resources = new ArrayList<>();

    @BeforeAll
    static void startServers() {
        servers = RetryServers.get();
    }

    @AfterEach
    void stop() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    /** What a crash does to a thread: nothing after it runs, and no code catches it as an {@code Exception}. */
    static final class SimulatedCrash extends Error {
        SimulatedCrash() {
            super("simulated crash after the retry was sent, before the transaction committed");
        }
    }

    @Test
    void aRetrySentBeforeACrashIsAbortedWithTheOffsetAndTheRetryAfterTheRestartComesOnceAtItsBackOff() {
        String topic = RetryServers.unique("tx-orders");
        String group = RetryServers.unique("tx-group");
        servers.createTopics(topic);
        KafkaTemplate<String, String> template = transactionalTemplate();
        DelayBridgeRecoverer recoverer = DelayBridgeErrorHandler.builder(template)
                .intakeTopic(RetryServers.INTAKE)
                .backOff(RetryBackOff.fixed(BACK_OFF))
                .attempts(3)
                .buildRecoverer();
        AtomicBoolean crashed = new AtomicBoolean();
        ConsumerAwareRecordRecoverer crashingOnce = (record, consumer, e) -> {
            recoverer.accept(record, consumer, e); // the retry is sent, in the after-rollback transaction
            if (crashed.compareAndSet(false, true)) {
                throw new SimulatedCrash();
            }
        };
        Receptions got = new Receptions();
        MessageListener<String, String> failsOnFirstDelivery = record -> {
            got.add(record);
            if (record.headers().lastHeader(RetryHeaders.ATTEMPT) == null) {
                throw new IllegalStateException("payment service unavailable");
            }
        };
        String key = "order-" + UUID.randomUUID();

        ConcurrentMessageListenerContainer<String, String> first =
                listen(topic, group, template, crashingOnce, failsOnFirstDelivery);
        send(topic, key, "{\"order\":42}");
        await().atMost(Duration.ofSeconds(30))
                .until(() ->
                        crashed.get() && first.getContainers().stream().noneMatch(MessageListenerContainer::isRunning));
        assertEquals(1, intake(key, "read_uncommitted").size(), "the retry was sent before the crash");
        assertEquals(List.of(), intake(key, "read_committed"), "and aborted with the transaction");
        first.stop();

        // the application restarts: the offset was not committed, the record comes again and fails again
        listen(topic, group, template, crashingOnce, failsOnFirstDelivery);
        await().atMost(Duration.ofSeconds(30)).until(() -> got.size() >= 3);
        List<Reception> r = got.all();
        assertEquals(r.get(0).record().offset(), r.get(1).record().offset(), "the crashed delivery came again");
        assertEquals(
                List.of("1", "1", "2"),
                r.stream()
                        .map(x -> x.header(RetryHeaders.ATTEMPT) == null ? "1" : x.header(RetryHeaders.ATTEMPT))
                        .toList());
        Reception retry = r.get(2);
        assertEquals(key, retry.record().key());
        assertEquals("{\"order\":42}", retry.record().value());
        assertEquals(topic + "-0-" + r.get(0).record().offset() + "-retry-2", retry.header(DelayHeaders.ID));
        long afterFailure = retry.receivedAt() - r.get(1).receivedAt();
        long due = Long.parseLong(retry.header(DelayHeaders.DUE_AT));
        assertTrue(
                afterFailure >= BACK_OFF.toMillis(),
                "retry came " + afterFailure + " ms after the failure, before" + " its back-off of "
                        + BACK_OFF.toMillis() + " ms");
        assertTrue(retry.receivedAt() >= due, "received before its due time");

        assertEquals(
                1,
                intake(key, "read_committed").size(),
                "one committed retry for the failure, though it"
                        + " failed twice (the first one's transaction aborted)");
        assertEquals(2, intake(key, "read_uncommitted").size(), "both sends reached the log");
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(3)).until(() -> got.size() == 3);
        System.out.println("[ExactlyOnceRetryIT] crash between the retry's send and the commit: intake holds 2"
                + " records, 1 committed; the retry came " + afterFailure + " ms after the failure (back-off "
                + BACK_OFF.toMillis() + " ms), " + (retry.receivedAt() - due) + " ms after its due time");
    }

    @Test
    void afterTheLastAttemptTheRecordIsDeadLetteredOnceInTheTransaction() {
        String topic = RetryServers.unique("tx-payments");
        servers.createTopics(topic);
        KafkaTemplate<String, String> template = transactionalTemplate();
        DelayBridgeRecoverer recoverer = DelayBridgeErrorHandler.builder(template)
                .intakeTopic(RetryServers.INTAKE)
                .backOff(RetryBackOff.fixed(Duration.ofMillis(300)))
                .attempts(2)
                .buildRecoverer();
        Receptions got = new Receptions();
        listen(topic, RetryServers.unique("tx-group"), template, recoverer, record -> {
            got.add(record);
            throw new IllegalStateException("card declined for " + record.key());
        });
        String key = "payment-" + UUID.randomUUID();
        send(topic, key, "{\"payment\":7}");

        Receptions.awaitRecords(servers.bootstrap(), topic + "-dlt", rec -> true, Duration.ofSeconds(30));
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(3)).until(() -> got.size() == 2);
        List<ConsumerRecord<String, String>> dead =
                Receptions.readAll(servers.bootstrap(), topic + "-dlt", rec -> true, "read_committed");
        assertEquals(1, dead.size(), "one committed dead letter");
        assertEquals(key, dead.get(0).key());
        assertEquals("2", Receptions.header(dead.get(0), RetryHeaders.ATTEMPT), "deliveries made");
        assertEquals(1, intake(key, "read_committed").size(), "one retry");
    }

    /** The documented recipe: transaction manager, {@code read_committed}, after-rollback processor. */
    private ConcurrentMessageListenerContainer<String, String> listen(
            String topic,
            String group,
            KafkaTemplate<String, String> template,
            ConsumerAwareRecordRecoverer recoverer,
            MessageListener<String, String> listener) {
        var factory = new ConcurrentKafkaListenerContainerFactory<String, String>();
        factory.setConsumerFactory(new DefaultKafkaConsumerFactory<>(
                Map.of(
                        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, servers.bootstrap(),
                        ConsumerConfig.GROUP_ID_CONFIG, group,
                        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false",
                        ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"),
                new StringDeserializer(),
                new StringDeserializer()));
        factory.getContainerProperties()
                .setKafkaAwareTransactionManager(new KafkaTransactionManager<>(template.getProducerFactory()));
        factory.setAfterRollbackProcessor(
                new DefaultAfterRollbackProcessor<>(recoverer, new FixedBackOff(0L, 0L), template, true));
        ConcurrentMessageListenerContainer<String, String> container = factory.createContainer(topic);
        container.setupMessageListener(listener);
        container.start();
        resources.add(container::stop);
        return container;
    }

    private KafkaTemplate<String, String> transactionalTemplate() {
        var factory = new DefaultKafkaProducerFactory<String, String>(
                Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, servers.bootstrap(), ProducerConfig.ACKS_CONFIG, "all"),
                new StringSerializer(),
                new StringSerializer());
        factory.setTransactionIdPrefix(RetryServers.unique("tx-"));
        resources.add(factory::destroy);
        return new KafkaTemplate<>(factory);
    }

    private void send(String topic, String key, String value) {
        var factory = new DefaultKafkaProducerFactory<String, String>(
                Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, servers.bootstrap()),
                new StringSerializer(),
                new StringSerializer());
        try {
            new KafkaTemplate<>(factory)
                    .send(new ProducerRecord<>(topic, key, value))
                    .get();
        } catch (Exception e) {
            throw new IllegalStateException("send to " + topic + " failed", e);
        } finally {
            factory.destroy();
        }
    }

    private static List<ConsumerRecord<String, String>> intake(String key, String isolationLevel) {
        return Receptions.readAll(
                servers.bootstrap(), RetryServers.INTAKE, rec -> key.equals(rec.key()), isolationLevel);
    }
}

package io.delaybridge.connectors.spring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.schemas.IntakeCommand;
import io.delaybridge.schemas.IntakeParser;
import io.delaybridge.schemas.TargetPolicy;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.ListenerExecutionFailedException;
import org.springframework.kafka.mock.MockProducerFactory;
import org.springframework.kafka.support.KafkaHeaders;

/** What the recoverer sends, on a mock producer: pure logic, the integration test proves it against a bridge. */
class DelayBridgeRecovererTest {

    private final MockProducer<String, String> producer =
            new MockProducer<>(true, null, new StringSerializer(), new StringSerializer());
    private final KafkaTemplate<String, String> template =
            new KafkaTemplate<>(new MockProducerFactory<>(() -> producer));

    @Test
    void aFirstFailureGoesToTheIntakeWithTheBackOffTheHeadersAndAnIdFromItsPosition() {
        DelayBridgeRecoverer recoverer = DelayBridgeErrorHandler.builder(template)
                .backOff(RetryBackOff.of(Duration.ofSeconds(1), Duration.ofSeconds(5)))
                .build()
                .recoverer();
        ConsumerRecord<String, String> failed = record("orders", 3, 42, Map.of("trace-id", "7f3a"));

        recoverer.accept(failed, null, failure(new IllegalStateException("down")));

        ProducerRecord<String, String> sent = only();
        assertEquals("delay-intake", sent.topic());
        assertEquals("order-42", sent.key());
        assertEquals("{\"order\":42}", sent.value());
        assertEquals("orders", header(sent, DelayHeaders.TARGET));
        assertEquals("1000", header(sent, DelayHeaders.DELAY_MS));
        assertEquals("orders-3-42-retry-2", header(sent, DelayHeaders.ID));
        assertEquals("2", header(sent, RetryHeaders.ATTEMPT));
        assertEquals("orders/3/42", header(sent, RetryHeaders.ORIGIN));
        assertEquals("CREATE_TIME/1764000000000", header(sent, RetryHeaders.ORIGIN_TIMESTAMP));
        assertEquals("3", header(sent, DelayHeaders.PARTITION), "back to the partition it came from");
        assertEquals("7f3a", header(sent, "trace-id"));
    }

    @Test
    void aRetryComesBackOnTheFirstDeliverysPartitionUnlessLeftToThePartitioner() {
        Map<String, String> retried = Map.of(RetryHeaders.ATTEMPT, "2", RetryHeaders.ORIGIN, "orders/3/42");
        DelayBridgeErrorHandler.builder(template)
                .build()
                .recoverer()
                .accept(record("orders", 1, 9, retried), null, failure(new IllegalStateException("down")));
        assertEquals("3", header(only(), DelayHeaders.PARTITION), "the original's, not the copy's");

        MockProducer<String, String> other =
                new MockProducer<>(true, null, new StringSerializer(), new StringSerializer());
        DelayBridgeErrorHandler.builder(new KafkaTemplate<>(new MockProducerFactory<>(() -> other)))
                .retryToOriginalPartition(false)
                .build()
                .recoverer()
                .accept(record("orders", 3, 42, Map.of()), null, failure(new IllegalStateException("down")));
        assertEquals(1, other.history().size());
        assertEquals(null, header(other.history().get(0), DelayHeaders.PARTITION), "the partitioner decides");
    }

    @Test
    void aRetriedRecordDropsTheBridgesHeadersAndKeepsItsOrigin() throws Exception {
        DelayBridgeRecoverer recoverer = DelayBridgeErrorHandler.builder(template)
                .intakeTopic("my-intake")
                .retryTopic("orders-retry")
                .backOff(RetryBackOff.of(Duration.ofSeconds(1), Duration.ofSeconds(5)))
                .attempts(4)
                .build()
                .recoverer();
        ConsumerRecord<String, String> failed = record(
                "orders-retry",
                0,
                7,
                Map.of(
                        DelayHeaders.ID,
                        "orders-3-42-retry-2",
                        DelayHeaders.DUE_AT,
                        "1795339800000",
                        DelayHeaders.ORIGIN,
                        "my-intake/1/9",
                        DelayHeaders.ATTEMPT,
                        "1",
                        RetryHeaders.ATTEMPT,
                        "2",
                        RetryHeaders.ORIGIN,
                        "orders/3/42",
                        RetryHeaders.ORIGIN_TIMESTAMP,
                        "CREATE_TIME/1764000000000",
                        "trace-id",
                        "7f3a"));

        recoverer.accept(failed, null, failure(new IllegalStateException("still down")));

        ProducerRecord<String, String> sent = only();
        assertEquals("my-intake", sent.topic());
        assertEquals("orders-retry", header(sent, DelayHeaders.TARGET), "the retry topic");
        assertEquals("5000", header(sent, DelayHeaders.DELAY_MS), "the second delay");
        assertEquals("orders-3-42-retry-3", header(sent, DelayHeaders.ID));
        assertEquals("3", header(sent, RetryHeaders.ATTEMPT));
        assertEquals("orders/3/42", header(sent, RetryHeaders.ORIGIN));
        List<String> names = new ArrayList<>();
        sent.headers().forEach(h -> names.add(h.key()));
        assertEquals(
                List.of(
                                "trace-id",
                                RetryHeaders.ORIGIN,
                                RetryHeaders.ORIGIN_TIMESTAMP,
                                RetryHeaders.ATTEMPT,
                                DelayHeaders.TARGET,
                                DelayHeaders.DELAY_MS,
                                DelayHeaders.ID)
                        .stream()
                        .sorted()
                        .toList(),
                names.stream().sorted().toList(),
                "each header once, none of the last delivery's delay- headers");
        // the bridge's own parser accepts it as a schedule for the retry topic
        IntakeCommand parsed = new IntakeParser(
                        new TargetPolicy("my-intake", "delay-deadletter", List.of()), Long.MAX_VALUE)
                .parse(sent.headers(), 1_000L, "unused");
        assertEquals(new IntakeCommand.Schedule("orders-retry", 6_000L, "orders-3-42-retry-3", true, null), parsed);
    }

    @Test
    void theLastAttemptGoesToTheDeadLetterTopicWithTheAttemptCount() {
        DelayBridgeRecoverer recoverer =
                DelayBridgeErrorHandler.builder(template).attempts(3).build().recoverer();

        recoverer.accept(
                record(
                        "orders",
                        0,
                        5,
                        Map.of(
                                RetryHeaders.ATTEMPT,
                                "3",
                                RetryHeaders.ORIGIN,
                                "orders/2/1",
                                RetryHeaders.ORIGIN_TIMESTAMP,
                                "CREATE_TIME/1764000000000")),
                null,
                failure(new IllegalStateException("down")));
        ProducerRecord<String, String> last = only();
        assertEquals("orders-dlt", last.topic());
        assertEquals(2, last.partition(), "the original record's partition, as Spring's resolver");
        assertEquals("3", header(last, RetryHeaders.ATTEMPT));
        assertEquals(1, count(last, RetryHeaders.ATTEMPT));
        // Spring's original-* headers describe the first delivery, ours the last one
        assertEquals("orders", header(last, KafkaHeaders.DLT_ORIGINAL_TOPIC));
        assertEquals(
                2,
                ByteBuffer.wrap(bytes(last, KafkaHeaders.DLT_ORIGINAL_PARTITION))
                        .getInt());
        assertEquals(
                1L,
                ByteBuffer.wrap(bytes(last, KafkaHeaders.DLT_ORIGINAL_OFFSET)).getLong());
        assertEquals(
                1764000000000L,
                ByteBuffer.wrap(bytes(last, KafkaHeaders.DLT_ORIGINAL_TIMESTAMP))
                        .getLong());
        assertEquals("CREATE_TIME", header(last, KafkaHeaders.DLT_ORIGINAL_TIMESTAMP_TYPE));
        for (String name : List.of(
                KafkaHeaders.DLT_ORIGINAL_TOPIC,
                KafkaHeaders.DLT_ORIGINAL_PARTITION,
                KafkaHeaders.DLT_ORIGINAL_OFFSET,
                KafkaHeaders.DLT_ORIGINAL_TIMESTAMP,
                KafkaHeaders.DLT_ORIGINAL_TIMESTAMP_TYPE)) {
            assertEquals(1, count(last, name), name + " once");
        }
        assertEquals("orders/0/5", header(last, RetryHeaders.LAST));
        assertEquals(IllegalStateException.class.getName(), header(last, "kafka_dlt-exception-cause-fqcn"));
    }

    @Test
    void aNotRetryableExceptionGoesToTheDeadLetterTopicOnTheFirstDelivery() {
        DelayBridgeRecoverer recoverer =
                DelayBridgeErrorHandler.builder(template).attempts(3).build().recoverer();
        recoverer.accept(record("orders", 0, 6, Map.of()), null, failure(new ClassCastException("not an Order")));
        ProducerRecord<String, String> fatal = only();
        assertEquals("orders-dlt", fatal.topic(), "Spring's classification: not retryable");
        assertEquals("1", header(fatal, RetryHeaders.ATTEMPT));
        assertEquals("orders/0/6", header(fatal, RetryHeaders.ORIGIN));
        assertEquals("orders/0/6", header(fatal, RetryHeaders.LAST));
        assertEquals(
                6L,
                ByteBuffer.wrap(bytes(fatal, KafkaHeaders.DLT_ORIGINAL_OFFSET)).getLong());
    }

    @Test
    void aFailedSendToTheIntakeThrowsSoTheRecordIsHandledAgain() {
        MockProducer<String, String> failing =
                new MockProducer<>(false, null, new StringSerializer(), new StringSerializer());
        DelayBridgeRecoverer recoverer = DelayBridgeErrorHandler.builder(
                        new KafkaTemplate<>(new MockProducerFactory<>(() -> failing)))
                .sendTimeout(Duration.ofMillis(200))
                .build()
                .recoverer();
        Exception e = assertThrows(
                RuntimeException.class,
                () -> recoverer.accept(
                        record("orders", 0, 1, Map.of()), null, failure(new IllegalStateException("down"))));
        assertTrue(e.getMessage().contains("delay-intake"), e.getMessage());
    }

    @Test
    void theBuilderRefusesBadValues() {
        var b = DelayBridgeErrorHandler.builder(template);
        assertThrows(IllegalArgumentException.class, () -> b.attempts(0));
        assertThrows(IllegalArgumentException.class, () -> b.blockingRetries(-1, Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> b.intakeTopic(" "));
        assertThrows(IllegalArgumentException.class, () -> DelayBridgeErrorHandler.builder(null));
        assertThrows(
                IllegalArgumentException.class,
                () -> DelayBridgeErrorHandler.builder(template)
                        .retryTopic("delay-intake")
                        .build());
    }

    /** One send per test: the template closes a mock producer after its send. */
    private ProducerRecord<String, String> only() {
        assertEquals(1, producer.history().size(), producer.history().toString());
        return producer.history().get(0);
    }

    private static ListenerExecutionFailedException failure(Exception cause) {
        return new ListenerExecutionFailedException("listener failed", cause);
    }

    private static ConsumerRecord<String, String> record(
            String topic, int partition, long offset, Map<String, String> headers) {
        ConsumerRecord<String, String> r = new ConsumerRecord<>(
                topic,
                partition,
                offset,
                1764000000000L,
                TimestampType.CREATE_TIME,
                -1,
                -1,
                "order-42",
                "{\"order\":42}",
                new RecordHeaders(),
                Optional.empty());
        headers.forEach((k, v) -> r.headers().add(k, v.getBytes(StandardCharsets.UTF_8)));
        return r;
    }

    private static String header(ProducerRecord<?, ?> r, String name) {
        Header h = r.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    private static byte[] bytes(ProducerRecord<?, ?> r, String name) {
        Header h = r.headers().lastHeader(name);
        assertTrue(h != null, name + " missing");
        return h.value();
    }

    private static int count(ProducerRecord<?, ?> r, String name) {
        int n = 0;
        for (Header ignored : r.headers().headers(name)) {
            n++;
        }
        return n;
    }
}

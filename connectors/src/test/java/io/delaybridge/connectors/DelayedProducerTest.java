package io.delaybridge.connectors;

import static io.delaybridge.connectors.DelayedRecordsTest.rendered;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.metrics.KafkaMetric;
import org.apache.kafka.common.metrics.Measurable;
import org.apache.kafka.common.metrics.MetricConfig;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.Test;

class DelayedProducerTest {

    private final MockProducer<String, String> mock =
            new MockProducer<>(true, null, new StringSerializer(), new StringSerializer());
    private final DelayedProducer<String, String> producer = new DelayedProducer<>(mock);

    @Test
    void sendSeriesSendsOneIntakeRecordWithTheSeriesHeaders() throws Exception {
        producer.sendSeries(
                        "reports.nightly",
                        "report",
                        "{}",
                        "nightly-report",
                        Repeat.cron("30 2 * * *", java.time.ZoneId.of("Europe/Berlin"))
                                .times(3))
                .get();
        ProducerRecord<String, String> r = mock.history().get(0);
        assertEquals("delay-intake", r.topic());
        assertEquals("report", r.key());
        assertEquals(
                List.of(
                        "delay-target=reports.nightly",
                        "delay-cron=30 2 * * *",
                        "delay-zone=Europe/Berlin",
                        "delay-count=3",
                        "delay-id=nightly-report"),
                rendered(r.headers()));
    }

    @Test
    void sendDelayedSendsOneIntakeRecord() throws Exception {
        RecordMetadata meta = producer.sendDelayed(
                        "orders.timeout", "order-42", "{\"order\":42}", Delay.of(Duration.ofMinutes(30)))
                .get();

        assertEquals("delay-intake", meta.topic());
        assertEquals(1, mock.history().size());
        ProducerRecord<String, String> r = mock.history().get(0);
        assertEquals("delay-intake", r.topic());
        assertEquals("order-42", r.key());
        assertEquals("{\"order\":42}", r.value());
        assertEquals(List.of("delay-target=orders.timeout", "delay-ms=1800000"), rendered(r.headers()));
    }

    @Test
    void sendDelayedUntil() {
        producer.sendDelayed("orders.timeout", "k", "v", Delay.until(Instant.parse("2026-11-22T08:00:00Z")));
        assertEquals(
                List.of("delay-target=orders.timeout", "delay-until=1795334400000"),
                rendered(mock.history().get(0).headers()));
    }

    @Test
    void sendDelayedWithCallbackCallsItBack() {
        AtomicReference<RecordMetadata> seen = new AtomicReference<>();
        producer.sendDelayed("orders.timeout", "k", "v", Delay.ofMillis(5), (meta, error) -> seen.set(meta));
        assertNotNull(seen.get());
        assertEquals("delay-intake", seen.get().topic());
    }

    @Test
    void sendDelayedWithIdSetsDelayId() {
        producer.sendDelayed("orders.timeout", "k", "v", Delay.ofMillis(5), "order-42-timeout");
        assertEquals(
                List.of("delay-target=orders.timeout", "delay-ms=5", "delay-id=order-42-timeout"),
                rendered(mock.history().get(0).headers()));
    }

    @Test
    void cancelSendsACancelRecord() {
        producer.cancel("order-42-timeout");
        producer.cancel("order-43-timeout", "order-43");

        ProducerRecord<String, String> plain = mock.history().get(0);
        assertEquals("delay-intake", plain.topic());
        assertNull(plain.key());
        assertNull(plain.value());
        assertEquals(List.of("delay-cancel=order-42-timeout"), rendered(plain.headers()));

        ProducerRecord<String, String> keyed = mock.history().get(1);
        assertEquals("order-43", keyed.key());
        assertNull(keyed.value());
        assertEquals(List.of("delay-cancel=order-43-timeout"), rendered(keyed.headers()));
    }

    @Test
    void anotherIntakeTopicIsUsedForEverything() {
        DelayedProducer<String, String> p = new DelayedProducer<>(mock, "my-intake");
        assertEquals("my-intake", p.intakeTopic());
        p.sendDelayed("t", "k", "v", Delay.ofMillis(1));
        p.sendDelayed("t", "k", "v", Delay.ofMillis(1), (m, e) -> {});
        p.sendDelayed("t", "k", "v", Delay.ofMillis(1), "id");
        p.cancel("id");
        p.cancel("id", "k");
        assertEquals(5, mock.history().size());
        assertTrue(mock.history().stream().allMatch(r -> r.topic().equals("my-intake")));
        assertThrows(IllegalArgumentException.class, () -> p.sendDelayed("my-intake", "k", "v", Delay.ofMillis(1)));
    }

    @Test
    void invalidArgumentsThrowBeforeAnythingIsSent() {
        assertThrows(IllegalArgumentException.class, () -> producer.sendDelayed(null, "k", "v", Delay.ofMillis(5)));
        assertThrows(IllegalArgumentException.class, () -> producer.sendDelayed("t", "k", "v", null));
        assertThrows(IllegalArgumentException.class, () -> producer.sendDelayed("t", "k", "v", Delay.ofMillis(5), " "));
        assertThrows(IllegalArgumentException.class, () -> producer.cancel(""));
        assertThrows(IllegalArgumentException.class, () -> producer.cancel(null, "k"));
        assertTrue(mock.history().isEmpty());
    }

    @Test
    void constructorRejectsMissingParts() {
        assertThrows(IllegalArgumentException.class, () -> new DelayedProducer<String, String>(null));
        assertThrows(IllegalArgumentException.class, () -> new DelayedProducer<>(mock, ""));
    }

    @Test
    void plainSendsPassThroughUntouched() {
        ProducerRecord<String, String> record = new ProducerRecord<>("orders", "k", "v");
        producer.send(record);
        producer.send(record, (m, e) -> {});
        assertSame(record, mock.history().get(0));
        assertSame(record, mock.history().get(1));
        assertFalse(record.headers().iterator().hasNext());
    }

    @Test
    void delayedRecordsJoinTheWrappedProducersTransaction() {
        MockProducer<String, String> tx =
                new MockProducer<>(false, null, new StringSerializer(), new StringSerializer());
        DelayedProducer<String, String> p = new DelayedProducer<>(tx);
        p.initTransactions();
        assertTrue(tx.transactionInitialized());
        p.beginTransaction();
        assertTrue(tx.transactionInFlight());
        p.send(new ProducerRecord<>("orders", "k", "v"));
        p.sendDelayed("orders.timeout", "k", "v", Delay.ofMillis(5));
        p.sendOffsetsToTransaction(
                Map.of(new TopicPartition("in", 0), new OffsetAndMetadata(7)), new ConsumerGroupMetadata("g"));
        assertTrue(tx.sentOffsets());
        p.commitTransaction();
        assertTrue(tx.transactionCommitted());
        assertEquals(2, tx.history().size());

        p.beginTransaction();
        p.sendDelayed("orders.timeout", "k", "v", Delay.ofMillis(5));
        p.abortTransaction();
        assertTrue(tx.transactionAborted());
        assertEquals(2, tx.history().size());
    }

    @Test
    void flushAndCloseReachTheWrappedProducer() {
        MockProducer<String, String> manual =
                new MockProducer<>(false, null, new StringSerializer(), new StringSerializer());
        DelayedProducer<String, String> p = new DelayedProducer<>(manual);
        p.sendDelayed("t", "k", "v", Delay.ofMillis(5));
        assertFalse(manual.flushed());
        p.flush();
        assertTrue(manual.flushed());

        assertFalse(manual.closed());
        p.close();
        assertTrue(manual.closed());

        MockProducer<String, String> other = new MockProducer<>();
        new DelayedProducer<>(other).close(Duration.ofSeconds(1));
        assertTrue(other.closed());
    }

    @Test
    void metricsPartitionsAndClientIdComeFromTheWrappedProducer() {
        Uuid id = Uuid.randomUuid();
        mock.setClientInstanceId(id);
        assertEquals(id, producer.clientInstanceId(Duration.ofSeconds(1)));
        assertSame(mock.metrics().getClass(), producer.metrics().getClass());
        assertEquals(mock.partitionsFor("t"), producer.partitionsFor("t"));

        KafkaMetric metric = metric();
        producer.registerMetricForSubscription(metric);
        assertTrue(mock.addedMetrics().contains(metric));
        producer.unregisterMetricFromSubscription(metric);
        assertFalse(mock.addedMetrics().contains(metric));
    }

    /**
     * Every method of {@link Producer}, called on the wrapper, must reach the wrapped producer exactly once with the
     * same arguments, and its result must come back unchanged. Reflection over the interface, so a method added to
     * {@code Producer} by a Kafka upgrade (even a default method) fails here until it is delegated.
     */
    @Test
    void everyProducerMethodIsDelegated() throws Exception {
        List<Method> methods = Arrays.stream(Producer.class.getMethods())
                .filter(m -> !Modifier.isStatic(m.getModifiers()))
                .toList();
        assertTrue(methods.size() >= 15, "Producer has at least 15 methods in kafka-clients 4.x: " + methods);

        for (Method method : methods) {
            List<String> calls = new ArrayList<>();
            AtomicReference<Object[]> received = new AtomicReference<>();
            Object result = sentinel(method.getReturnType());
            @SuppressWarnings("unchecked")
            Producer<String, String> recorder = (Producer<String, String>) Proxy.newProxyInstance(
                    getClass().getClassLoader(), new Class<?>[] {Producer.class}, (proxy, m, args) -> {
                        if (m.getDeclaringClass() == Object.class) {
                            switch (m.getName()) {
                                case "equals":
                                    return proxy == args[0];
                                case "hashCode":
                                    return System.identityHashCode(proxy);
                                default:
                                    return "recorder";
                            }
                        }
                        calls.add(m.getName() + Arrays.toString(m.getParameterTypes()));
                        received.set(args);
                        return result;
                    });

            Object[] args = Arrays.stream(method.getParameterTypes())
                    .map(DelayedProducerTest::argument)
                    .toArray();
            Object returned;
            try {
                returned = method.invoke(new DelayedProducer<>(recorder), args);
            } catch (InvocationTargetException e) {
                throw new AssertionError(method + " threw", e.getCause());
            }

            assertEquals(
                    List.of(method.getName() + Arrays.toString(method.getParameterTypes())),
                    calls,
                    method + " must be passed to the wrapped producer once, as itself");
            if (args.length > 0) {
                Object[] got = received.get();
                for (int i = 0; i < args.length; i++) {
                    assertSame(args[i], got[i], method + " argument " + i);
                }
            }
            if (method.getReturnType() != void.class) {
                assertSame(result, returned, method + " must return the wrapped producer's result");
            }
        }
    }

    private static Object sentinel(Class<?> type) {
        if (type == void.class) {
            return null;
        }
        if (type == java.util.concurrent.Future.class) {
            return new CompletableFuture<RecordMetadata>();
        }
        if (type == List.class) {
            return new ArrayList<PartitionInfo>();
        }
        if (type == Map.class) {
            return new java.util.HashMap<MetricName, KafkaMetric>();
        }
        if (type == Uuid.class) {
            return Uuid.randomUuid();
        }
        throw new AssertionError("no sentinel for return type " + type + "; extend the test");
    }

    private static Object argument(Class<?> type) {
        if (type == ProducerRecord.class) {
            return new ProducerRecord<>("t", "k", "v");
        }
        if (type == Callback.class) {
            return (Callback) (m, e) -> {};
        }
        if (type == String.class) {
            return new String("topic");
        }
        if (type == Duration.class) {
            return Duration.ofMillis(1234);
        }
        if (type == Map.class) {
            return Map.of(new TopicPartition("in", 0), new OffsetAndMetadata(1));
        }
        if (type == ConsumerGroupMetadata.class) {
            return new ConsumerGroupMetadata("g");
        }
        if (type == KafkaMetric.class) {
            return metric();
        }
        throw new AssertionError("no argument for parameter type " + type + "; extend the test");
    }

    private static KafkaMetric metric() {
        return new KafkaMetric(
                new Object(),
                new MetricName("m", "g", "d", Map.of()),
                (Measurable) (config, now) -> 1.0,
                new MetricConfig(),
                Time.SYSTEM);
    }
}

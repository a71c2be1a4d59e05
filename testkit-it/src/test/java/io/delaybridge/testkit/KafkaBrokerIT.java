package io.delaybridge.testkit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

@Execution(ExecutionMode.CONCURRENT) // beside the other classes; its own tests one after the other
class KafkaBrokerIT {

    @TempDir
    static Path dataDir;

    private static KafkaBroker broker;

    @BeforeAll
    static void startBroker() {
        broker = KafkaBroker.start(dataDir);
        System.out.printf(
                "Kafka broker started in %d ms on %s%n",
                broker.lastStartDuration().toMillis(), broker.bootstrapServers());
    }

    @AfterAll
    static void stopBroker() {
        if (broker != null) {
            broker.close();
            assertFalse(broker.isAlive());
        }
    }

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    void recordWithHeadersRoundTrips() throws Exception {
        String topic = "roundtrip";
        createTopic(topic);

        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(topic, bytes("order-42"), bytes("payload"));
            record.headers().add("delay-target", bytes("orders.timeout")).add("delay-ms", bytes("30000"));
            producer.send(record).get(10, TimeUnit.SECONDS);
        }

        List<ConsumerRecord<byte[], byte[]>> records = consume(topic, 1);
        ConsumerRecord<byte[], byte[]> got = records.get(0);
        assertArrayEquals(bytes("order-42"), got.key());
        assertArrayEquals(bytes("payload"), got.value());
        Header target = got.headers().lastHeader("delay-target");
        assertArrayEquals(bytes("orders.timeout"), target.value());
        assertArrayEquals(bytes("30000"), got.headers().lastHeader("delay-ms").value());
    }

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    void topicsAreNotCreatedAutomatically() throws Exception {
        try (Admin admin = admin()) {
            ConfigResource node = new ConfigResource(ConfigResource.Type.BROKER, "1");
            Config config = admin.describeConfigs(Set.of(node))
                    .all()
                    .get(10, TimeUnit.SECONDS)
                    .get(node);
            assertEquals("false", config.get("auto.create.topics.enable").value());
        }
    }

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    void committedRecordsSurviveKillAndRestart() throws Exception {
        String topic = "survives-kill";
        createTopic(topic);
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            for (int i = 0; i < 100; i++) {
                producer.send(new ProducerRecord<>(topic, bytes("k" + i), bytes("v" + i)));
            }
            producer.flush();
        }
        long oldPid = broker.pid();
        broker.kill();
        assertFalse(broker.isAlive());

        broker.restart();
        System.out.printf(
                "Kafka broker restarted after SIGKILL in %d ms%n",
                broker.lastStartDuration().toMillis());
        assertTrue(broker.isAlive());
        assertNotEquals(oldPid, broker.pid());

        List<ConsumerRecord<byte[], byte[]>> records = consume(topic, 100);
        assertEquals(100, records.size());
        assertArrayEquals(bytes("v99"), records.get(99).value());
    }

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    void aPortThatIsTakenFailsWithTheBrokerLogTail(@TempDir Path otherDir) throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            IllegalStateException e = assertThrows(
                    IllegalStateException.class, () -> KafkaBroker.start(otherDir, taken.getLocalPort(), 0));
            assertTrue(e.getMessage().contains("broker.log"), e.getMessage());
            assertTrue(e.getMessage().contains("Address already in use"), e.getMessage());
        }
    }

    private void createTopic(String topic) throws Exception {
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
    }

    private Admin admin() {
        return Admin.create(Map.of("bootstrap.servers", broker.bootstrapServers()));
    }

    private KafkaProducer<byte[], byte[]> producer() {
        return new KafkaProducer<>(
                Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        broker.bootstrapServers(),
                        ProducerConfig.ACKS_CONFIG,
                        "all"),
                new ByteArraySerializer(),
                new ByteArraySerializer());
    }

    private List<ConsumerRecord<byte[], byte[]>> consume(String topic, int expected) {
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(
                Map.of(
                        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        broker.bootstrapServers(),
                        ConsumerConfig.GROUP_ID_CONFIG,
                        "it-" + topic,
                        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                        "earliest"),
                new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (out.size() < expected && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(out::add);
            }
        }
        assertEquals(expected, out.size(), "records consumed from " + topic);
        return out;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}

package io.delaybridge.devmode;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The development-mode command, run as a user runs it: a child JVM that brings its own broker and Redis. */
class DevModeIT {

    private static final Pattern KAFKA = Pattern.compile("Kafka bootstrap\\s+(\\S+)");

    @Test
    void devModeStartsAcceptsARecordDeliversItAndStopsCleanlyOnSigterm(@TempDir Path dataDir) throws Exception {
        int kafkaPort = freePort();
        int redisPort = freePort();
        int adminPort = freePort();
        String java = ProcessHandle.current().info().command().orElse("java");
        Process dev = new ProcessBuilder(java, "-Xmx512m", "-cp", System.getProperty("java.class.path"),
                DevMode.class.getName(), "--data-dir", dataDir.toString(),
                "--kafka-port", Integer.toString(kafkaPort), "--redis-port", Integer.toString(redisPort),
                "--http-port", Integer.toString(freePort()), "--admin-port", Integer.toString(adminPort))
                .redirectErrorStream(true)
                .start();
        List<String> output = new CopyOnWriteArrayList<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader lines = new BufferedReader(
                    new InputStreamReader(dev.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = lines.readLine()) != null) {
                    output.add(line);
                }
            } catch (IOException e) {
                // the process ended
            }
        });
        reader.start();
        try {
            await().atMost(Duration.ofSeconds(90)).until(() ->
                    output.stream().anyMatch(l -> l.contains("dev mode is ready")) || !dev.isAlive());
            assertTrue(dev.isAlive(), () -> "dev mode died:\n" + String.join("\n", output));
            String bootstrap = output.stream().map(KAFKA::matcher).filter(Matcher::find)
                    .map(m -> m.group(1)).findFirst().orElseThrow();
            assertEquals("127.0.0.1:" + kafkaPort, bootstrap);
            assertTrue(output.stream().anyMatch(l -> l.contains("kcat -P -b " + bootstrap + " -t delay-intake")),
                    "prints a ready-to-paste kcat producer line");

            try (KafkaProducer<String, String> producer = producer(bootstrap);
                    KafkaConsumer<String, String> consumer = consumer(bootstrap)) {
                ProducerRecord<String, String> record =
                        new ProducerRecord<>("delay-intake", "order-42", "{\"order\":42}");
                record.headers().add("delay-target", DevMode.EXAMPLE_TARGET.getBytes(StandardCharsets.UTF_8));
                record.headers().add("delay-ms", "1s".getBytes(StandardCharsets.UTF_8));
                long sent = producer.send(record).get(30, TimeUnit.SECONDS).timestamp();

                TopicPartition target = new TopicPartition(DevMode.EXAMPLE_TARGET, 0);
                consumer.assign(List.of(target));
                consumer.seekToBeginning(List.of(target));
                List<ConsumerRecord<String, String>> got = new ArrayList<>();
                await().atMost(Duration.ofSeconds(30)).until(() -> {
                    consumer.poll(Duration.ofMillis(100)).forEach(got::add);
                    return !got.isEmpty();
                });
                assertEquals("order-42", got.get(0).key());
                assertEquals("{\"order\":42}", got.get(0).value());
                assertTrue(got.get(0).timestamp() >= sent + 1_000, "delivered after its delay, not before");
            }
        } finally {
            long stopAt = System.nanoTime();
            int linesBefore = output.size();
            // SIGTERM, as a service manager would; Process.destroy() would also close our end of its output
            dev.toHandle().destroy();
            boolean exited = dev.waitFor(60, TimeUnit.SECONDS);
            if (!exited) {
                dev.destroyForcibly();
            }
            reader.join(10_000);
            assertTrue(exited, () -> "dev mode did not stop within 60 s:\n" + String.join("\n", output));
            System.out.println("[DevModeIT] exit code " + dev.exitValue() + " after "
                    + (System.nanoTime() - stopAt) / 1_000_000 + " ms, lines " + linesBefore + " -> " + output.size());
        }
        assertTrue(output.stream().anyMatch(l -> l.contains("dev mode: stopped")),
                () -> "stopped the broker and Redis:\n" + String.join("\n", output));
        assertFalse(listening(kafkaPort), "the broker is gone");
        assertFalse(listening(redisPort), "redis-server is gone");
    }

    private static KafkaProducer<String, String> producer(String bootstrap) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        return new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
    }

    private static KafkaConsumer<String, String> consumer(String bootstrap) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        return new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer());
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static boolean listening(int port) {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}

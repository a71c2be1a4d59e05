package io.delaybridge.devmode;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
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
    private static final Pattern LOGS = Pattern.compile("^\\s+Logs\\s+(.+)$");
    /** A line of a Kafka client's configuration dump, e.g. {@code \tbootstrap.servers = [127.0.0.1:9092]}. */
    private static final Pattern CONFIG_DUMP = Pattern.compile("Config values:|^\\s+[a-z0-9]+(\\.[a-z0-9]+)+ = ");

    @Test
    void devModeStartsAcceptsARecordDeliversItAndStopsCleanlyOnSigterm(@TempDir Path dataDir) throws Exception {
        int kafkaPort = freePort();
        int redisPort = freePort();
        int adminPort = freePort();
        Process dev = startDevMode(
                "--data-dir",
                dataDir.toString(),
                "--kafka-port",
                Integer.toString(kafkaPort),
                "--redis-port",
                Integer.toString(redisPort),
                "--http-port",
                Integer.toString(freePort()),
                "--admin-port",
                Integer.toString(adminPort));
        List<String> output = new CopyOnWriteArrayList<>();
        Thread reader = readLines(dev, output);
        boolean exited;
        try {
            // A generous deadline: on two cores shared with other builds the broker alone has taken 60 s to start
            await().atMost(Duration.ofSeconds(180))
                    .untilAsserted(() -> assertTrue(
                            bannerEnd(output) >= 0 || !dev.isAlive(),
                            () -> "no banner yet:\n" + String.join("\n", output)));
            assertTrue(dev.isAlive(), () -> "dev mode died:\n" + String.join("\n", output));
            assertSpeaksInAFewLines(List.copyOf(output).subList(0, bannerEnd(output) + 1), kafkaPort);
            String bootstrap = output.stream()
                    .map(KAFKA::matcher)
                    .filter(Matcher::find)
                    .map(m -> m.group(1))
                    .findFirst()
                    .orElseThrow();
            assertEquals("127.0.0.1:" + kafkaPort, bootstrap);
            assertTrue(
                    output.stream().anyMatch(l -> l.contains("kcat -P -b " + bootstrap + " -t delay-intake")),
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
            // stopped whatever happened; asserted on below, so that a failure above is the one reported
            exited = stop(dev, reader, output);
        }
        assertTrue(exited, () -> "dev mode did not stop within 60 s:\n" + String.join("\n", output));
        assertTrue(
                output.stream().anyMatch(l -> l.contains("dev mode: stopped")),
                () -> "stopped the broker and Redis:\n" + String.join("\n", output));
        assertFalse(listening(kafkaPort), "the broker is gone");
        assertFalse(listening(redisPort), "redis-server is gone");
    }

    /** Stops dev mode with SIGTERM, as a service manager would; whether it exited within 60 s (else it is killed). */
    private static boolean stop(Process dev, Thread reader, List<String> output) throws InterruptedException {
        long stopAt = System.nanoTime();
        int linesBefore = output.size();
        // Process.destroy() would also close our end of its output
        dev.toHandle().destroy();
        boolean exited = dev.waitFor(60, TimeUnit.SECONDS);
        if (!exited) {
            dev.destroyForcibly();
        }
        reader.join(10_000);
        System.out.println("[DevModeIT] " + (exited ? "exit code " + dev.exitValue() : "killed") + " after "
                + (System.nanoTime() - stopAt) / 1_000_000 + " ms, lines " + linesBefore + " -> " + output.size());
        return exited;
    }

    @Test
    void aBridgeThatCannotStartIsNamedWithItsLogAndTheServersAreStopped(@TempDir Path dataDir) throws Exception {
        int kafkaPort = freePort();
        int redisPort = freePort();
        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Process dev = startDevMode(
                    "--data-dir",
                    dataDir.toString(),
                    "--kafka-port",
                    Integer.toString(kafkaPort),
                    "--redis-port",
                    Integer.toString(redisPort),
                    "--http-port",
                    Integer.toString(taken.getLocalPort()),
                    "--admin-port",
                    Integer.toString(freePort()));
            List<String> output = new CopyOnWriteArrayList<>();
            Thread reader = readLines(dev, output);
            boolean exited = dev.waitFor(120, TimeUnit.SECONDS);
            if (!exited) {
                dev.destroyForcibly();
            }
            reader.join(10_000);
            String shown = String.join("\n", output);
            assertTrue(exited, () -> "dev mode did not give up within 120 s:\n" + shown);
            assertEquals(1, dev.exitValue(), shown);
            Path bridgeLog = dataDir.resolve(DevMode.BRIDGE_LOG);
            int failed = output.indexOf("delay-bridge dev mode: the bridge did not start: "
                    + "java.io.IOException: Failed to bind to /127.0.0.1:" + taken.getLocalPort());
            assertTrue(failed >= 0, () -> "names what failed:\n" + shown);
            assertTrue(
                    output.subList(failed, output.size()).contains("delay-bridge dev mode: read its log: " + bridgeLog),
                    () -> "names the log to read:\n" + shown);
            assertTrue(output.stream().noneMatch(l -> l.contains("dev mode is ready")), shown);
            assertTrue(Files.readString(bridgeLog).contains("Failed to bind to /127.0.0.1:" + taken.getLocalPort()));
        }
        assertFalse(listening(kafkaPort), "the broker is stopped");
        assertFalse(listening(redisPort), "redis-server is stopped");
    }

    /**
     * What a newcomer sees before the banner: one line per start-up step and the bridge's own lines, no DEBUG
     * chatter and no client configuration dump; the full logs are in the files the banner names.
     */
    private static void assertSpeaksInAFewLines(List<String> upToBanner, int kafkaPort) throws IOException {
        String shown = String.join("\n", upToBanner);
        // 3 steps, the bridge's own lines (topics, Redis, one per pumped shard, the start-up timeline), the banner
        assertTrue(upToBanner.size() <= 32, () -> upToBanner.size() + " lines up to the banner:\n" + shown);
        assertTrue(upToBanner.stream().noneMatch(l -> l.contains("DEBUG")), () -> "a DEBUG line:\n" + shown);
        assertTrue(
                upToBanner.stream().noneMatch(l -> CONFIG_DUMP.matcher(l).find()),
                () -> "a client configuration dump:\n" + shown);
        String kafkaStep = "delay-bridge dev mode: starting Kafka on 127.0.0.1:" + kafkaPort + " ... ready in ";
        assertTrue(
                upToBanner.stream().anyMatch(l -> l.startsWith(kafkaStep) && l.endsWith(" s")),
                () -> "one line for the broker's start:\n" + shown);
        assertTrue(
                upToBanner.stream().anyMatch(l -> l.contains("INFO  RedisDelayStore: Redis store at")),
                () -> "the bridge's own INFO lines:\n" + shown);

        List<Path> logs = upToBanner.stream()
                .map(LOGS::matcher)
                .filter(Matcher::find)
                .flatMap(m -> Arrays.stream(m.group(1).trim().split("\\s{2,}")))
                .map(name -> Path.of(name).toAbsolutePath())
                .toList();
        assertEquals(
                List.of("bridge.log", "broker.log", "redis.log"),
                logs.stream().map(log -> log.getFileName().toString()).toList(),
                shown);
        logs.forEach(log -> assertTrue(Files.isRegularFile(log), () -> log + " is named but does not exist"));
        String broker = Files.readString(logs.get(1));
        assertTrue(
                broker.contains("---- starting Kafka broker on 127.0.0.1:" + kafkaPort)
                        && broker.contains("[BrokerServer id=1] Transition from STARTING to STARTED"),
                broker);
        assertTrue(Files.readString(logs.get(2)).contains("Ready to accept connections"));
        // The bridge's file appender writes asynchronously: wait for its start-up lines, at INFO, from everyone
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            String bridge = Files.readString(logs.get(0));
            assertTrue(
                    bridge.contains("io.delaybridge.bridge.store.redis.RedisDelayStore: Redis store at")
                            && bridge.contains("ConsumerConfig values:"),
                    bridge);
        });
    }

    /** The index of the banner's closing line, or -1 while it has not been printed. */
    private static int bannerEnd(List<String> output) {
        List<String> lines = List.copyOf(output);
        int ready = -1;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains("dev mode is ready")) {
                ready = i;
            } else if (ready >= 0 && lines.get(i).startsWith("=====")) {
                return i;
            }
        }
        return -1;
    }

    /**
     * Dev mode in a child JVM with the class path it has in {@code dev.sh}: without this module's test classes, whose
     * {@code logback-test.xml} would quieten the libraries that dev mode must quieten itself.
     */
    private static Process startDevMode(String... args) throws IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        String classPath = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(entry -> !Path.of(entry).endsWith("test-classes"))
                .collect(Collectors.joining(File.pathSeparator));
        List<String> command = new ArrayList<>(List.of(java, "-Xmx512m", "-cp", classPath, DevMode.class.getName()));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectErrorStream(true).start();
    }

    private static Thread readLines(Process process, List<String> output) {
        Thread reader = new Thread(() -> {
            try (BufferedReader lines =
                    new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = lines.readLine()) != null) {
                    output.add(line);
                }
            } catch (IOException e) {
                // the process ended
            }
        });
        reader.start();
        return reader;
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

package io.delaybridge.bench;

import io.delaybridge.schemas.DelayHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The baseline: a plain Kafka copy. Consumes the intake with the bridge's consumer settings and produces each record,
 * key, value and headers, to the topic its {@code delay-target} names, with the bridge's producer settings. No Redis,
 * no waiting for the due time. Offsets are committed asynchronously after each poll, as a plain copy would.
 *
 * <p>{@link #main} runs it as a process of its own, started cold like the bridge it is compared with
 * ({@link CopyDrain}); otherwise it runs on a thread of the benchmark's JVM.
 */
public final class PlainCopy implements AutoCloseable {

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final KafkaProducer<byte[], byte[]> producer;
    private final Thread thread;
    private final AtomicLong copied = new AtomicLong();
    private volatile boolean running = true;

    PlainCopy(String bootstrap, String intake, String groupId) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "2000");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        producer = new KafkaProducer<>(
                Load.producerProperties(bootstrap), new ByteArraySerializer(), new ByteArraySerializer());
        consumer.subscribe(List.of(intake));
        thread = new Thread(this::run, "bench-plain-copy");
        thread.start();
    }

    long copied() {
        return copied.get();
    }

    private void run() {
        try {
            while (running) {
                var records = consumer.poll(Duration.ofMillis(100));
                for (ConsumerRecord<byte[], byte[]> record : records) {
                    Header target = record.headers().lastHeader(DelayHeaders.TARGET);
                    producer.send(new ProducerRecord<>(
                            new String(target.value(), StandardCharsets.UTF_8),
                            null,
                            null,
                            record.key(),
                            record.value(),
                            record.headers()));
                }
                if (!records.isEmpty()) {
                    consumer.commitAsync();
                    copied.addAndGet(records.count());
                }
            }
        } catch (WakeupException e) {
            // closing
        } finally {
            producer.close();
            consumer.close();
        }
    }

    /** Arguments: bootstrap servers, intake topic, group id. Copies until SIGTERM, then closes its clients. */
    public static void main(String[] args) throws InterruptedException {
        PlainCopy copy = new PlainCopy(args[0], args[1], args[2]);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            try {
                                copy.close();
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        },
                        "bench-plain-copy-stop"));
        copy.thread.join();
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        consumer.wakeup();
        thread.join(30_000);
    }
}

package io.delaybridge.checker;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Produces the numbered records to the intake topic at a bounded rate and tells the ledger which ones the broker
 * acknowledged (acks=all), with their partition, offset and due time. A record whose send failed (the broker was
 * down too long) is not counted: the guarantee is about acknowledged records.
 */
final class IntakeLoad implements Runnable {

    private static final byte[] PADDING = "x".repeat(80).getBytes(StandardCharsets.US_ASCII);

    private final String bootstrap;
    private final String intakeTopic;
    private final List<String> targets;
    private final RecordPlan plan;
    private final DeliveryLedger ledger;
    private final int rate;
    private final BooleanSupplier crashPointsDone;
    final AtomicLong sent = new AtomicLong();
    final AtomicLong acked = new AtomicLong();
    final AtomicLong failed = new AtomicLong();

    IntakeLoad(
            String bootstrap,
            String intakeTopic,
            List<String> targets,
            RecordPlan plan,
            DeliveryLedger ledger,
            int rate,
            BooleanSupplier crashPointsDone) {
        this.bootstrap = bootstrap;
        this.intakeTopic = intakeTopic;
        this.targets = targets;
        this.plan = plan;
        this.ledger = ledger;
        this.rate = rate;
        this.crashPointsDone = crashPointsDone;
    }

    @Override
    public void run() {
        Producer<byte[], byte[]> producer = newProducer();
        LoadPacer pacer = new LoadPacer(rate, plan.records(), crashPointsDone, System.nanoTime());
        try {
            for (int n = 0; n < plan.records(); n++) {
                long wait = pacer.sendAt(n, System.nanoTime()) - System.nanoTime();
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait);
                }
                ProducerRecord<byte[], byte[]> record = record(n);
                final int number = n;
                try {
                    producer.send(record, (metadata, error) -> {
                        if (error == null) {
                            ledger.acknowledged(
                                    number,
                                    metadata.partition(),
                                    metadata.offset(),
                                    plan.dueAt(number, metadata.timestamp()));
                            acked.incrementAndGet();
                        } else {
                            failed.incrementAndGet();
                        }
                    });
                    sent.incrementAndGet();
                } catch (KafkaException e) {
                    failed.incrementAndGet();
                    producer.close();
                    producer = newProducer();
                }
            }
            producer.flush();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            producer.close();
        }
    }

    private ProducerRecord<byte[], byte[]> record(int n) {
        byte[] number = (n + ":").getBytes(StandardCharsets.US_ASCII);
        byte[] value = new byte[number.length + PADDING.length];
        System.arraycopy(number, 0, value, 0, number.length);
        System.arraycopy(PADDING, 0, value, number.length, PADDING.length);
        ProducerRecord<byte[], byte[]> record =
                new ProducerRecord<>(intakeTopic, ("key-" + (n % 997)).getBytes(StandardCharsets.US_ASCII), value);
        record.headers().add(new RecordHeader("delay-target", utf8(targets.get(plan.target(n)))));
        long delay = plan.delayMillis(n);
        if (delay == RecordPlan.AT_SHARED_INSTANT) {
            record.headers().add(new RecordHeader("delay-until", utf8(Long.toString(plan.sharedInstant()))));
        } else {
            record.headers().add(new RecordHeader("delay-ms", utf8(Long.toString(delay))));
        }
        return record;
    }

    /** The record number in a value written by this class, or -1. */
    static int number(byte[] value) {
        if (value == null) {
            return -1;
        }
        int n = 0;
        for (int i = 0; i < value.length && i < 12; i++) {
            byte b = value[i];
            if (b == ':') {
                return i == 0 ? -1 : n;
            }
            if (b < '0' || b > '9') {
                return -1;
            }
            n = n * 10 + (b - '0');
        }
        return -1;
    }

    private Producer<byte[], byte[]> newProducer() {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "120000");
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "60000");
        return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}

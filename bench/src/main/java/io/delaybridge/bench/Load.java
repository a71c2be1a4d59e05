package io.delaybridge.bench;

import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.schemas.SeriesHeaders;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Writes benchmark records to an intake topic: 200-byte values (due time, sequence number, phase, then incompressible
 * filler), {@code delay-target} and an absolute {@code delay-until}, so the due time is known without asking the
 * bridge. Sends follow a schedule: each record at its own send time, so a due rate and a spread of delays can be
 * laid out exactly.
 */
final class Load implements AutoCloseable {

    static final int VALUE_BYTES = 200;

    private final KafkaProducer<byte[], byte[]> producer;
    private final byte[] filler = new byte[1 << 16];
    private final AtomicLong failures = new AtomicLong();
    private final AtomicReference<Exception> lastFailure = new AtomicReference<>();
    /** Bounds the records waiting in the producer: a loaded broker slows the load down instead of expiring it. */
    private final Semaphore unacknowledged = new Semaphore(20_000);
    /** A header that carries the due time (epoch ms) too, for another scheduler; null for none. */
    private final String dueHeader;

    Load(String bootstrap) {
        this(bootstrap, null);
    }

    /** As {@link #Load(String)}, each record's due time in {@code dueHeader} too (epoch ms), e.g. for a peer. */
    Load(String bootstrap, String dueHeader) {
        this.dueHeader = dueHeader;
        producer = new KafkaProducer<>(loadProperties(bootstrap), new ByteArraySerializer(), new ByteArraySerializer());
        new Random(4).nextBytes(filler);
    }

    /** The bridge's own producer settings (KafkaFactory): the baseline and the load use them too. */
    static Properties producerProperties(String bootstrap) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.LINGER_MS_CONFIG, "2");
        props.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(64 * 1024));
        props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "snappy"); // the bridge's delivery producer's
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "60000");
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "300000");
        return props;
    }

    /**
     * The load generator's settings: the bridge's, but without idempotence and with long request timeouts. On the
     * loaded 2-core machine, an idempotent producer writing 200,000 records into new partitions at once ended in an
     * endless OUT_OF_ORDER_SEQUENCE_NUMBER loop (broker: "0 (incoming seq. number), 12485 (current end sequence
     * number)") after requests timed out; the load only needs acks=all.
     */
    static Properties loadProperties(String bootstrap) {
        Properties props = producerProperties(bootstrap);
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
        props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "120000");
        props.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
        return props;
    }

    /** A record's first 17 bytes: its due time, its sequence number and its phase (one byte, 0-255). */
    static void writeHead(ByteBuffer value, long dueAt, long seq, int phase) {
        if (phase < 0 || phase > 255) {
            throw new IllegalArgumentException("a phase is one byte of the record, 0-255: " + phase);
        }
        value.putLong(dueAt).putLong(seq).put((byte) phase);
    }

    /** The phase {@link #writeHead} wrote. */
    static int phaseOf(ByteBuffer value) {
        return Byte.toUnsignedInt(value.get(16));
    }

    byte[] value(long dueAt, long seq, int phase) {
        byte[] value = new byte[VALUE_BYTES];
        writeHead(ByteBuffer.wrap(value), dueAt, seq, phase);
        int from = (int) ((seq * 7919) & (filler.length - 1 - VALUE_BYTES));
        System.arraycopy(filler, from, value, 17, VALUE_BYTES - 17);
        return value;
    }

    void send(String intake, Integer partition, String target, long dueAt, long seq, int phase) {
        RecordHeaders headers = new RecordHeaders();
        headers.add(DelayHeaders.TARGET, target.getBytes(StandardCharsets.UTF_8));
        headers.add(DelayHeaders.UNTIL, Long.toString(dueAt).getBytes(StandardCharsets.UTF_8));
        if (dueHeader != null) {
            headers.add(dueHeader, Long.toString(dueAt).getBytes(StandardCharsets.UTF_8));
        }
        byte[] key = ("k" + seq).getBytes(StandardCharsets.UTF_8);
        unacknowledged.acquireUninterruptibly();
        producer.send(
                new ProducerRecord<>(intake, partition, null, key, value(dueAt, seq, phase), headers),
                this::acknowledged);
    }

    /**
     * A series due every second from {@code firstDue}, {@code count} occurrences, under {@code id}; its value carries
     * {@code seq}, the sequence number of its first occurrence (the collector numbers the n-th {@code seq + n - 1}).
     */
    void sendSeries(String intake, String target, String id, long firstDue, int count, long seq, int phase) {
        RecordHeaders headers = new RecordHeaders();
        headers.add(DelayHeaders.TARGET, target.getBytes(StandardCharsets.UTF_8));
        headers.add(DelayHeaders.ID, id.getBytes(StandardCharsets.UTF_8));
        headers.add(SeriesHeaders.EVERY, "1s".getBytes(StandardCharsets.UTF_8));
        headers.add(DelayHeaders.UNTIL, Long.toString(firstDue).getBytes(StandardCharsets.UTF_8));
        headers.add(SeriesHeaders.COUNT, Integer.toString(count).getBytes(StandardCharsets.UTF_8));
        unacknowledged.acquireUninterruptibly();
        producer.send(
                new ProducerRecord<>(
                        intake, null, null, id.getBytes(StandardCharsets.UTF_8), value(firstDue, seq, phase), headers),
                this::acknowledged);
    }

    private void acknowledged(org.apache.kafka.clients.producer.RecordMetadata metadata, Exception error) {
        unacknowledged.release();
        if (error != null) {
            failures.incrementAndGet();
            lastFailure.set(error);
        }
    }

    /**
     * Sends {@code count} records numbered from {@code seqBase}; record i is due at {@code dueAt[i]} and sent at
     * {@code sendAt[i]} (epoch ms; a send time in the past means at once). Returns when all are acknowledged.
     */
    void sendScheduled(
            String intake,
            String target,
            long seqBase,
            long[] dueAt,
            long[] sendAt,
            java.util.function.IntUnaryOperator phaseOf) {
        int n = dueAt.length;
        long[] order = new long[n];
        long origin = Arrays.stream(sendAt).min().orElse(0);
        for (int i = 0; i < n; i++) {
            order[i] = ((sendAt[i] - origin) << 24) | i; // send offset in ms (< 2^39) and index (< 2^24)
        }
        Arrays.sort(order);
        for (long packed : order) {
            int i = (int) (packed & ((1 << 24) - 1));
            long wait = sendAt[i] - System.currentTimeMillis();
            if (wait > 0) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(wait));
            }
            send(intake, null, target, dueAt[i], seqBase + i, phaseOf.applyAsInt(i));
        }
        flush();
    }

    void flush() {
        producer.flush();
        if (failures.get() > 0) {
            throw new IllegalStateException(failures.get() + " load records were not acknowledged", lastFailure.get());
        }
    }

    @Override
    public void close() {
        producer.close();
    }
}

package io.delaybridge.bridge.intake;

import io.delaybridge.bridge.delivery.DeliveryRecords;
import io.delaybridge.bridge.delivery.SendFailures;
import io.delaybridge.bridge.faults.CrashPoint;
import io.delaybridge.bridge.store.DelayStore;
import io.delaybridge.bridge.store.WriteOp;
import io.delaybridge.bridge.store.WriteResult;
import io.delaybridge.schemas.ContractViolation;
import io.dropwizard.lifecycle.Managed;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the intake topic in the consumer group and stores every record in the delay store.
 *
 * <p>Per poll: every record is translated into a store operation or a rejection; the operations are written to the
 * store in one pipelined batch; only once Redis acknowledged all of them are the rejections written to the deadletter
 * topic, and only once those are acknowledged is the offset committed. If any step fails, the consumer seeks back to
 * the first record of the batch and tries again after a backoff: writes are idempotent on (id, origin), so a record
 * read twice is stored once, and nothing is committed that Redis does not hold.
 */
public final class IntakeLoop implements Managed {

    private static final Logger LOG = LoggerFactory.getLogger(IntakeLoop.class);
    private static final long WRITE_TIMEOUT_SECONDS = 60;

    private final Properties consumerProperties;
    private final Producer<byte[], byte[]> producer;
    private final DelayStore store;
    private final RecordTranslator translator;
    private final IntakeSettings settings;
    private final PartitionListener partitionListener;
    private final IntakeMetrics metrics;
    private final CountDownLatch stopRequested = new CountDownLatch(1);
    private final CountDownLatch stopped = new CountDownLatch(1);

    private volatile boolean running;
    private volatile Consumer<byte[], byte[]> consumer;
    private Thread thread;
    private long backoffMillis;

    public IntakeLoop(
            Properties consumerProperties,
            Producer<byte[], byte[]> producer,
            DelayStore store,
            IntakeSettings settings,
            PartitionListener partitionListener,
            IntakeMetrics metrics) {
        this.consumerProperties = consumerProperties;
        this.producer = producer;
        this.store = store;
        this.translator = new RecordTranslator(settings);
        this.settings = settings;
        this.partitionListener = partitionListener;
        this.metrics = metrics;
    }

    @Override
    public void start() {
        running = true;
        consumer = new KafkaConsumer<>(consumerProperties, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        thread = new Thread(this::run, "delay-intake");
        thread.start();
    }

    @Override
    public void stop() throws InterruptedException {
        running = false;
        stopRequested.countDown();
        Consumer<byte[], byte[]> current = consumer;
        if (current != null) {
            current.wakeup();
        }
        stopped.await(60, TimeUnit.SECONDS);
    }

    /** True while the loop runs and holds a consumer. */
    public boolean isRunning() {
        return running && stopped.getCount() > 0;
    }

    private void run() {
        try {
            consumer.subscribe(List.of(settings.topic()), new Rebalance());
            backoffMillis = settings.retryBackoff().toMillis();
            while (running) {
                ConsumerRecords<byte[], byte[]> records = consumer.poll(settings.pollTimeout());
                if (!records.isEmpty()) {
                    handle(records);
                }
            }
        } catch (WakeupException e) {
            if (running) {
                LOG.error("Intake consumer woken up unexpectedly", e);
            }
        } catch (RuntimeException e) {
            LOG.error("Intake stopped by an unexpected error; offsets after the last stored batch are not committed",
                    e);
        } finally {
            try {
                consumer.close(); // revokes the partitions: their shards finish in-flight sends first
            } catch (RuntimeException e) {
                LOG.warn("Closing the intake consumer failed: {}", SendFailures.describe(e));
            }
            running = false;
            stopped.countDown();
        }
    }

    private void handle(ConsumerRecords<byte[], byte[]> records) {
        List<WriteOp> ops = new ArrayList<>(records.count());
        List<ConsumerRecord<byte[], byte[]>> rejected = new ArrayList<>();
        List<ContractViolation> reasons = new ArrayList<>();
        Map<TopicPartition, OffsetAndMetadata> commit = new HashMap<>();
        Map<TopicPartition, Long> first = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> record : records) {
            TopicPartition partition = new TopicPartition(record.topic(), record.partition());
            first.putIfAbsent(partition, record.offset());
            commit.put(partition, new OffsetAndMetadata(record.offset() + 1));
            RecordTranslator.Translation translation = translator.translate(record);
            if (translation.rejected()) {
                rejected.add(record);
                reasons.add(translation.rejection());
            } else {
                ops.add(translation.op());
            }
        }
        try {
            List<WriteResult> results = ops.isEmpty()
                    ? List.of()
                    : store.write(ops).get(WRITE_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            writeDeadletters(rejected, reasons);
            CrashPoint.AFTER_STORE_BEFORE_COMMIT.reach();
            consumer.commitSync(commit);
            results.forEach(metrics::result);
            reasons.forEach(reason -> metrics.deadlettered.mark(reason.code()));
            metrics.read.mark(records.count());
            metrics.writeBatch.mark();
            backoffMillis = settings.retryBackoff().toMillis();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running = false;
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
            if (cause instanceof WakeupException wakeup) {
                throw wakeup;
            }
            LOG.warn("Storing a batch of {} intake records failed; reading it again in {} ms: {}",
                    records.count(), backoffMillis, SendFailures.describe(cause));
            first.forEach(consumer::seek);
            sleepBackoff();
        }
    }

    private void writeDeadletters(List<ConsumerRecord<byte[], byte[]>> rejected, List<ContractViolation> reasons)
            throws InterruptedException, ExecutionException, TimeoutException {
        if (rejected.isEmpty()) {
            return;
        }
        List<Future<RecordMetadata>> sends = new ArrayList<>(rejected.size());
        for (int i = 0; i < rejected.size(); i++) {
            ContractViolation reason = reasons.get(i);
            ConsumerRecord<byte[], byte[]> record = rejected.get(i);
            LOG.debug("Refused intake record {}-{}@{}: {} {}", record.topic(), record.partition(), record.offset(),
                    reason.code(), reason.getMessage());
            sends.add(producer.send(DeliveryRecords.rejectedIntake(
                    settings.deadletterTopic(), record, reason.code(), reason.getMessage())));
        }
        for (Future<RecordMetadata> send : sends) {
            send.get(WRITE_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        }
    }

    private void sleepBackoff() {
        try {
            if (!stopRequested.await(backoffMillis, TimeUnit.MILLISECONDS)) {
                backoffMillis = Math.min(backoffMillis * 2, settings.maxRetryBackoff().toMillis());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running = false;
        }
    }

    /** Hands partition ownership to the pump: shard N is pumped where intake partition N is read. */
    private final class Rebalance implements ConsumerRebalanceListener {
        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            if (!partitions.isEmpty()) {
                partitionListener.revoked(numbers(partitions));
            }
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            if (!partitions.isEmpty()) {
                partitionListener.assigned(numbers(partitions));
            }
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            LOG.warn("Lost intake partitions {} without a clean hand-over", partitions);
            onPartitionsRevoked(partitions);
        }

        private List<Integer> numbers(Collection<TopicPartition> partitions) {
            return partitions.stream().map(TopicPartition::partition).sorted().toList();
        }
    }
}

package io.delaybridge.bridge.intake;

import io.delaybridge.bridge.delivery.DeliveryRecords;
import io.delaybridge.bridge.delivery.SendFailures;
import io.delaybridge.bridge.store.DelayStore;
import io.delaybridge.bridge.store.WriteOp;
import io.delaybridge.bridge.store.WriteResult;
import io.delaybridge.schemas.ContractViolation;
import io.dropwizard.lifecycle.Managed;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
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
 * topic, and only once those are acknowledged is the offset committed. Up to {@link #MAX_OUTSTANDING_BATCHES} polls
 * are on their way to Redis at once; they complete and commit strictly in poll order. If any step fails, the consumer
 * seeks back to the first record not yet committed and tries again after a backoff: writes are idempotent on
 * (id, origin), so a record read twice is stored once, and nothing is committed that Redis does not hold.
 */
public final class IntakeLoop implements Managed {

    private static final Logger LOG = LoggerFactory.getLogger(IntakeLoop.class);
    private static final long WRITE_TIMEOUT_SECONDS = 60;
    /**
     * Polls whose writes may be on their way to Redis at once. One poll at a time left the intake waiting a Redis
     * round trip (and its fsync) per poll; four keep Redis busy and bound the memory to four polls' records.
     */
    static final int MAX_OUTSTANDING_BATCHES = 4;

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
    /** Written or being written, oldest first; only the intake thread touches it. */
    private final Deque<Batch> outstanding = new ArrayDeque<>();
    /** Counts failed batches: a poll made before a failure is dropped, the consumer reads it again. */
    private long failures;
    private Map<TopicPartition, Long> lastSeek = Map.of();

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
                // With batches outstanding, take what is already fetched and otherwise wait for Redis, not the broker.
                ConsumerRecords<byte[], byte[]> records =
                        consumer.poll(outstanding.isEmpty() ? settings.pollTimeout() : Duration.ZERO);
                if (!records.isEmpty()) {
                    submit(records);
                } else if (!outstanding.isEmpty()) {
                    awaitHead(settings.pollTimeout().toMillis());
                }
                completeFinished();
            }
            finishOutstanding();
        } catch (WakeupException e) {
            if (running) {
                LOG.error("Intake consumer woken up unexpectedly", e);
            } else {
                finishOutstanding();
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

    /**
     * Translates one poll and sends its writes to the store without waiting for them. Waits first if
     * {@link #MAX_OUTSTANDING_BATCHES} are outstanding, or if an outstanding batch touches an id this poll touches:
     * operations on one id (a schedule and its cancel, a message and its replacement) reach Redis in intake order,
     * whatever the store does to retry a batch.
     */
    private void submit(ConsumerRecords<byte[], byte[]> records) {
        Batch batch = new Batch(records);
        for (ConsumerRecord<byte[], byte[]> record : records) {
            TopicPartition partition = new TopicPartition(record.topic(), record.partition());
            batch.first.putIfAbsent(partition, record.offset());
            batch.commit.put(partition, new OffsetAndMetadata(record.offset() + 1));
            RecordTranslator.Translation translation = translator.translate(record);
            if (translation.rejected()) {
                batch.rejected.add(record);
                batch.reasons.add(translation.rejection());
            } else {
                batch.ops.add(translation.op());
                batch.ids.add(translation.op().id());
            }
        }
        long generation = failures;
        while (!outstanding.isEmpty() && (outstanding.size() >= MAX_OUTSTANDING_BATCHES || overlaps(batch))) {
            awaitHead(WRITE_TIMEOUT_SECONDS * 1000);
            completeFinished();
        }
        if (generation != failures) {
            // An earlier batch failed and the consumer was sought back; partitions it did not cover go back to this
            // poll's first records, so these are read again too.
            batch.first.forEach((partition, offset) -> {
                if (!lastSeek.containsKey(partition)) {
                    consumer.seek(partition, offset);
                }
            });
            return;
        }
        if (!running) {
            return;
        }
        try {
            batch.write = batch.ops.isEmpty() ? CompletableFuture.completedFuture(List.of()) : store.write(batch.ops);
        } catch (RuntimeException e) {
            batch.write = CompletableFuture.failedFuture(e);
        }
        outstanding.addLast(batch);
    }

    private boolean overlaps(Batch batch) {
        for (Batch earlier : outstanding) {
            for (String id : batch.ids) {
                if (earlier.ids.contains(id)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Waits until the oldest outstanding batch is written; false if it failed (and was handled). */
    private boolean awaitHead(long timeoutMillis) {
        Batch head = outstanding.peekFirst();
        try {
            head.write.get(timeoutMillis, TimeUnit.MILLISECONDS);
            return true;
        } catch (TimeoutException e) {
            if (timeoutMillis >= WRITE_TIMEOUT_SECONDS * 1000) {
                failed(head, e);
                return false;
            }
            return true; // still waiting; completeFinished() leaves it outstanding
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running = false;
            return false;
        } catch (ExecutionException e) {
            failed(head, e.getCause());
            return false;
        }
    }

    /**
     * Completes written batches in intake order: writes their refusals to the deadletter topic, then commits offsets
     * up to the last completed batch, so an offset is committed only once Redis holds every record before it.
     */
    private void completeFinished() {
        Map<TopicPartition, OffsetAndMetadata> commit = new HashMap<>();
        while (!outstanding.isEmpty() && outstanding.peekFirst().write.isDone()) {
            Batch batch = outstanding.peekFirst();
            try {
                List<WriteResult> results = batch.write.join();
                writeDeadletters(batch.rejected, batch.reasons);
                results.forEach(metrics::result);
                batch.reasons.forEach(reason -> metrics.deadlettered.mark(reason.code()));
                metrics.read.mark(batch.records);
                metrics.writeBatch.mark();
                commit.putAll(batch.commit);
                outstanding.pollFirst();
                backoffMillis = settings.retryBackoff().toMillis();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                running = false;
                return;
            } catch (ExecutionException | TimeoutException | RuntimeException e) {
                Throwable cause = e instanceof CompletionException || e instanceof ExecutionException
                        ? e.getCause() : e;
                if (cause instanceof WakeupException wakeup) {
                    throw wakeup;
                }
                commitAsync(commit);
                failed(batch, cause);
                return;
            }
        }
        commitAsync(commit);
    }

    private void commitAsync(Map<TopicPartition, OffsetAndMetadata> commit) {
        if (!commit.isEmpty()) {
            // commits are sent in order; a lost one is covered by the next (or the record is read again: idempotent)
            consumer.commitAsync(commit, (offsets, error) -> {
                if (error != null) {
                    LOG.warn("Committing intake offsets {} failed: {}", offsets, SendFailures.describe(error));
                }
            });
        }
    }

    /** Drops every outstanding batch, seeks back to the first record not yet committed, and backs off. */
    private void failed(Batch batch, Throwable cause) {
        LOG.warn("Storing a batch of {} intake records failed; reading it and {} later batches again in {} ms: {}",
                batch.records, outstanding.size() - 1, backoffMillis, SendFailures.describe(cause));
        Map<TopicPartition, Long> seekTo = new HashMap<>();
        for (Batch dropped : outstanding) {
            dropped.first.forEach(seekTo::putIfAbsent); // the earliest batch holding a partition comes first
        }
        outstanding.clear();
        failures++;
        lastSeek = seekTo;
        seekTo.forEach(consumer::seek);
        sleepBackoff();
    }

    /** On stop or revocation: waits for outstanding batches and commits them, synchronously. */
    private void finishOutstanding() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WRITE_TIMEOUT_SECONDS);
        while (!outstanding.isEmpty() && System.nanoTime() < deadline) {
            Batch head = outstanding.peekFirst();
            try {
                head.write.get(WRITE_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            } catch (ExecutionException | TimeoutException e) {
                break; // not stored: not committed, read again by whoever owns the partition next
            }
            Map<TopicPartition, OffsetAndMetadata> commit = new HashMap<>();
            try {
                writeDeadletters(head.rejected, head.reasons);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            } catch (ExecutionException | TimeoutException | RuntimeException e) {
                break;
            }
            commit.putAll(head.commit);
            outstanding.pollFirst();
            try {
                consumer.commitSync(commit);
            } catch (RuntimeException e) {
                LOG.warn("Committing intake offsets {} failed: {}", commit, SendFailures.describe(e));
                break;
            }
        }
        outstanding.clear();
    }

    /** One poll's records on their way into the store. */
    private static final class Batch {
        final int records;
        final List<WriteOp> ops;
        final Set<String> ids;
        final List<ConsumerRecord<byte[], byte[]>> rejected = new ArrayList<>();
        final List<ContractViolation> reasons = new ArrayList<>();
        final Map<TopicPartition, OffsetAndMetadata> commit = new HashMap<>();
        final Map<TopicPartition, Long> first = new HashMap<>();
        CompletableFuture<List<WriteResult>> write;

        Batch(ConsumerRecords<byte[], byte[]> records) {
            this.records = records.count();
            this.ops = new ArrayList<>(this.records);
            this.ids = new HashSet<>(this.records * 2);
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
            finishOutstanding(); // commit what Redis holds while the partitions are still ours
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
            outstanding.clear(); // cannot commit any more: the new owner reads them again
            if (!partitions.isEmpty()) {
                partitionListener.revoked(numbers(partitions));
            }
        }

        private List<Integer> numbers(Collection<TopicPartition> partitions) {
            return partitions.stream().map(TopicPartition::partition).sorted().toList();
        }
    }
}

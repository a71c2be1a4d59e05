package io.delaybridge.connectors;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.metrics.KafkaMetric;

/**
 * A {@link Producer} that can also send records with a delay. It wraps any producer, passes every {@code Producer}
 * method through unchanged, and adds {@link #sendDelayed} and {@link #cancel}, which send an intake record built by
 * {@link DelayedRecords} through the same producer. Plain {@link #send} calls are not touched, so one producer serves
 * both ordinary and delayed records, inside the same transaction if the wrapped producer is transactional.
 *
 * <pre>{@code
 * Properties props = new Properties();
 * props.put("bootstrap.servers", "localhost:9092");
 * props.put("acks", "all");
 * try (DelayedProducer<String, String> producer = new DelayedProducer<>(
 *         new KafkaProducer<>(props, new StringSerializer(), new StringSerializer()))) {
 *     producer.send(new ProducerRecord<>("orders", "order-42", "{\"order\":42}"));
 *     producer.sendDelayed("orders.timeout", "order-42", "{\"order\":42}", Delay.of(Duration.ofMinutes(30)));
 * }
 * }</pre>
 *
 * <p>The delayed record goes to the intake topic ({@value DelayedRecords#DEFAULT_INTAKE} unless given) with the
 * headers {@code delay-target: orders.timeout} and {@code delay-ms: 1800000}; the bridge delivers it to
 * {@code orders.timeout} thirty minutes after its timestamp. The returned future completes when the
 * <em>intake</em> has the record, not when it is delivered.
 *
 * <p>To reschedule or cancel later, give the message an id:
 * <pre>{@code
 * producer.sendDelayed("orders.timeout", "order-42", value, Delay.of(Duration.ofMinutes(30)), "order-42-timeout");
 * producer.sendDelayed("orders.timeout", "order-42", value, Delay.of(Duration.ofHours(1)), "order-42-timeout"); // replaces it
 * producer.cancel("order-42-timeout", "order-42");   // the key keeps the cancel on the schedule's intake partition
 * }</pre>
 * For other options (target partition, user headers) build the record with {@link DelayedRecords} and
 * {@link #send} it. A recurring record is one call too: {@link #sendSeries} with a {@link Repeat}.
 *
 * <p>In tests, wrap a {@link org.apache.kafka.clients.producer.MockProducer} and inspect its {@code history()}.
 *
 * <p>Invalid arguments (a null or illegal target, a negative delay, a blank id) throw
 * {@link IllegalArgumentException} before anything is sent. The wrapper holds no state of its own and is as
 * thread-safe as the producer it wraps. {@link #close()} closes the wrapped producer.
 *
 * @param <K> key type
 * @param <V> value type
 */
public final class DelayedProducer<K, V> implements Producer<K, V> {

    private final Producer<K, V> delegate;
    private final String intake;

    /**
     * Wraps a producer for a bridge reading the default intake topic {@value DelayedRecords#DEFAULT_INTAKE}.
     *
     * @param delegate the producer that sends everything; closed by {@link #close()}
     */
    public DelayedProducer(Producer<K, V> delegate) {
        this(delegate, DelayedRecords.DEFAULT_INTAKE);
    }

    /**
     * Wraps a producer for a bridge reading another intake topic.
     *
     * @param delegate    the producer that sends everything; closed by {@link #close()}
     * @param intakeTopic the bridge's intake topic
     * @throws IllegalArgumentException if {@code delegate} is null or {@code intakeTopic} is null or blank
     */
    public DelayedProducer(Producer<K, V> delegate, String intakeTopic) {
        if (delegate == null) {
            throw new IllegalArgumentException("delegate producer is null");
        }
        if (intakeTopic == null || intakeTopic.isBlank()) {
            throw new IllegalArgumentException("intake topic is blank; give the topic the bridge reads (default "
                    + DelayedRecords.DEFAULT_INTAKE + ")");
        }
        this.delegate = delegate;
        this.intake = intakeTopic;
    }

    /** @return the intake topic delayed records and cancels are sent to */
    public String intakeTopic() {
        return intake;
    }

    /**
     * Sends {@code key} and {@code value} to be delivered to {@code target} when {@code delay} is due.
     *
     * @param target topic to deliver to
     * @param key    record key, may be null; also picks the intake partition
     * @param value  record value, may be null
     * @param delay  when it is due
     * @return the future of the intake record's send
     * @throws IllegalArgumentException if the target or delay is invalid (see {@link DelayedRecords#to})
     */
    public Future<RecordMetadata> sendDelayed(String target, K key, V value, Delay delay) {
        return delegate.send(
                DelayedRecords.to(target, key, value, delay).intake(intake).toRecord());
    }

    /**
     * Like {@link #sendDelayed(String, Object, Object, Delay)}, with a callback for the intake record's send.
     *
     * @param target   topic to deliver to
     * @param key      record key, may be null
     * @param value    record value, may be null
     * @param delay    when it is due
     * @param callback called when the intake has the record or the send failed, as for {@link #send}
     * @return the future of the intake record's send
     */
    public Future<RecordMetadata> sendDelayed(String target, K key, V value, Delay delay, Callback callback) {
        return delegate.send(
                DelayedRecords.to(target, key, value, delay).intake(intake).toRecord(), callback);
    }

    /**
     * Like {@link #sendDelayed(String, Object, Object, Delay)}, under a message id: a pending message with the same
     * id is replaced, and {@link #cancel(String)} can remove it.
     *
     * @param target   topic to deliver to
     * @param key      record key, may be null
     * @param value    record value, may be null
     * @param delay    when it is due
     * @param id       message id, not blank
     * @return the future of the intake record's send
     * @throws IllegalArgumentException also if the id is blank or too long (see {@link DelayedRecords.Schedule#withId})
     */
    public Future<RecordMetadata> sendDelayed(String target, K key, V value, Delay delay, String id) {
        return delegate.send(DelayedRecords.to(target, key, value, delay)
                .withId(id)
                .intake(intake)
                .toRecord());
    }

    /**
     * Sends {@code key} and {@code value} as a series: delivered to {@code target} at every occurrence of
     * {@code repeat}, until its count or end, or {@link #cancel(String)} of {@code id}. Another series under the same
     * id replaces it.
     *
     * <pre>{@code
     * producer.sendSeries("reports.nightly", "report", "{}", "nightly-report",
     *         Repeat.cron("30 2 * * *", ZoneId.of("Europe/Berlin")));
     * }</pre>
     *
     * @param target topic to deliver to
     * @param key    record key, may be null
     * @param value  record value, may be null
     * @param id     the series id, not blank
     * @param repeat when it is delivered
     * @return the future of the intake record's send
     * @throws IllegalArgumentException if the target, id or schedule is refused (see {@link DelayedRecords#series})
     */
    public Future<RecordMetadata> sendSeries(String target, K key, V value, String id, Repeat repeat) {
        return delegate.send(DelayedRecords.series(target, key, value, id, repeat)
                .intake(intake)
                .toRecord());
    }

    /**
     * Cancels the pending message with this id. Prefer {@link #cancel(String, Object)} with the scheduled record's
     * key when there is one.
     *
     * @param id the id the message was scheduled with
     * @return the future of the cancel record's send
     * @throws IllegalArgumentException if the id is null, blank or too long
     */
    public Future<RecordMetadata> cancel(String id) {
        return delegate.send(DelayedRecords.<K, V>cancel(id).intake(intake).toRecord());
    }

    /**
     * Cancels the pending message with this id, sending the cancel with the key the message was scheduled with, so
     * that it reaches the same intake partition and the bridge reads it after the schedule.
     *
     * @param id  the id the message was scheduled with
     * @param key the key the message was scheduled with
     * @return the future of the cancel record's send
     * @throws IllegalArgumentException if the id is null, blank or too long
     */
    public Future<RecordMetadata> cancel(String id, K key) {
        return delegate.send(
                DelayedRecords.<K, V>cancel(id).withKey(key).intake(intake).toRecord());
    }

    @Override
    public void initTransactions() {
        delegate.initTransactions();
    }

    @Override
    public void beginTransaction() throws ProducerFencedException {
        delegate.beginTransaction();
    }

    @Override
    public void sendOffsetsToTransaction(
            Map<TopicPartition, OffsetAndMetadata> offsets, ConsumerGroupMetadata groupMetadata)
            throws ProducerFencedException {
        delegate.sendOffsetsToTransaction(offsets, groupMetadata);
    }

    @Override
    public void commitTransaction() throws ProducerFencedException {
        delegate.commitTransaction();
    }

    @Override
    public void abortTransaction() throws ProducerFencedException {
        delegate.abortTransaction();
    }

    @Override
    public void registerMetricForSubscription(KafkaMetric metric) {
        delegate.registerMetricForSubscription(metric);
    }

    @Override
    public void unregisterMetricFromSubscription(KafkaMetric metric) {
        delegate.unregisterMetricFromSubscription(metric);
    }

    @Override
    public Future<RecordMetadata> send(ProducerRecord<K, V> record) {
        return delegate.send(record);
    }

    @Override
    public Future<RecordMetadata> send(ProducerRecord<K, V> record, Callback callback) {
        return delegate.send(record, callback);
    }

    @Override
    public void flush() {
        delegate.flush();
    }

    @Override
    public List<PartitionInfo> partitionsFor(String topic) {
        return delegate.partitionsFor(topic);
    }

    @Override
    public Map<MetricName, ? extends Metric> metrics() {
        return delegate.metrics();
    }

    @Override
    public Uuid clientInstanceId(Duration timeout) {
        return delegate.clientInstanceId(timeout);
    }

    @Override
    public void close() {
        delegate.close();
    }

    @Override
    public void close(Duration timeout) {
        delegate.close(timeout);
    }

    @Override
    public String toString() {
        return "DelayedProducer[intake=" + intake + ", delegate=" + delegate + "]";
    }
}

package io.delaybridge.connectors;

import java.util.function.Function;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;

/**
 * Options of {@link Delays}: the message id and target partition per record, the intake topic, and the serdes of
 * the intake sink. Immutable: every {@code with...} returns a new instance.
 *
 * <pre>{@code
 * DelayOptions<String, Order> options = DelayOptions.<String, Order>defaults()
 *     .withId(record -> "order-timeout:" + record.key())
 *     .withPartition(record -> 0)
 *     .produced(Produced.with(Serdes.String(), orderSerde));
 * }</pre>
 *
 * @param <K> key type of the stream
 * @param <V> value type of the stream
 */
public final class DelayOptions<K, V> {

    private final String intake;
    private final Function<FixedKeyRecord<K, V>, String> id;
    private final Function<FixedKeyRecord<K, V>, Integer> partition;
    private final Produced<K, V> produced;

    private DelayOptions(
            String intake,
            Function<FixedKeyRecord<K, V>, String> id,
            Function<FixedKeyRecord<K, V>, Integer> partition,
            Produced<K, V> produced) {
        this.intake = intake;
        this.id = id;
        this.partition = partition;
        this.produced = produced;
    }

    /**
     * No id (the bridge's default {@code <intake>-<partition>-<offset>}), the target's partitioner, the intake
     * {@value DelayedRecords#DEFAULT_INTAKE}, the application's default serdes.
     *
     * @param <K> key type
     * @param <V> value type
     * @return the defaults
     */
    public static <K, V> DelayOptions<K, V> defaults() {
        return new DelayOptions<>(DelayedRecords.DEFAULT_INTAKE, null, null, null);
    }

    /**
     * The message id of each record ({@code delay-id}), so it can be rescheduled or cancelled
     * ({@link Delays#cancel}). Not blank, at most 512 UTF-8 bytes.
     *
     * @param id the id of a record, e.g. {@code record -> "order-timeout:" + record.key()}
     * @return a copy with the id function
     */
    public DelayOptions<K, V> withId(Function<FixedKeyRecord<K, V>, String> id) {
        return new DelayOptions<>(intake, require(id, "id"), partition, produced);
    }

    /**
     * The target partition of each record ({@code delay-partition}); a null result leaves it to the target's
     * partitioner.
     *
     * @param partition the partition of a record, zero or more, or null
     * @return a copy with the partition function
     */
    public DelayOptions<K, V> withPartition(Function<FixedKeyRecord<K, V>, Integer> partition) {
        return new DelayOptions<>(intake, id, require(partition, "partition"), produced);
    }

    /**
     * @param topic the bridge's intake topic, for a bridge configured with another than
     *              {@value DelayedRecords#DEFAULT_INTAKE}
     * @return a copy for that intake
     */
    public DelayOptions<K, V> intake(String topic) {
        if (topic == null || topic.isBlank()) {
            throw new IllegalArgumentException("intake topic is blank; give the topic the bridge reads (default "
                    + DelayedRecords.DEFAULT_INTAKE + ")");
        }
        return new DelayOptions<>(topic, id, partition, produced);
    }

    /**
     * @param produced the serdes of the intake sink of {@link Delays#to}; otherwise the application's defaults
     * @return a copy with them
     */
    public DelayOptions<K, V> produced(Produced<K, V> produced) {
        return new DelayOptions<>(intake, id, partition, require(produced, "produced"));
    }

    String intakeTopic() {
        return intake;
    }

    Function<FixedKeyRecord<K, V>, String> id() {
        return id;
    }

    Function<FixedKeyRecord<K, V>, Integer> partition() {
        return partition;
    }

    Produced<K, V> produced() {
        return produced;
    }

    private static <T> T require(T value, String what) {
        if (value == null) {
            throw new IllegalArgumentException(what + " is null");
        }
        return value;
    }
}

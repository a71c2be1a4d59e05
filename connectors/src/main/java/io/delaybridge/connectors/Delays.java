package io.delaybridge.connectors;

import io.delaybridge.schemas.DelayHeaders;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorSupplier;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;

/**
 * Delayed records from a Kafka Streams application in one call: the records of a stream are written to the
 * bridge's intake topic with the control headers, and the bridge delivers each to {@code target} when it is due.
 *
 * <pre>{@code
 * StreamsBuilder builder = new StreamsBuilder();
 * KStream<String, String> created = builder.stream("orders.created");
 * Delays.to(created, "orders.timeout", record -> Duration.ofMinutes(30),
 *         DelayOptions.<String, String>defaults().withId(record -> "order-timeout:" + record.key()));
 *
 * builder.<String, String>stream("orders.paid")
 *         .processValues(Delays.cancel(record -> "order-timeout:" + record.key()))
 *         .to("delay-intake");
 * }</pre>
 *
 * <p>The delay counts from the stream record's timestamp: the intake record carries
 * {@code delay-until = timestamp + delay}, so the due time does not depend on how long the application took, nor on
 * the intake topic's timestamp type. Key and value are written with the sink's serdes and delivered unchanged; the
 * record's headers are passed on except those starting with {@code delay-} (a record read from a topic the bridge
 * delivered to carries {@code delay-id} and others, which would be taken for control headers). For more control,
 * {@link #schedule} and {@link #cancel} are processors that only add the headers: send their output to the intake
 * yourself.
 *
 * <p>A bad id or partition (blank, too long, negative) throws {@link IllegalArgumentException} in the stream thread,
 * like any failing processor; validate ids in the functions if the data can be bad. The header names come from
 * {@link DelayHeaders}; the checks are those of {@link DelayedRecords}.
 */
public final class Delays {

    private Delays() {}

    /**
     * Writes every record of {@code stream} to the intake topic {@value DelayedRecords#DEFAULT_INTAKE}, to be
     * delivered to {@code target} after {@code delay}, with the application's default serdes.
     *
     * @param stream the records to delay
     * @param target the topic to deliver to
     * @param delay  the delay of a record after its timestamp, e.g. {@code record -> Duration.ofMinutes(30)}
     * @param <K>    key type
     * @param <V>    value type
     */
    public static <K, V> void to(KStream<K, V> stream, String target, Function<FixedKeyRecord<K, V>, Duration> delay) {
        to(stream, target, delay, DelayOptions.defaults());
    }

    /**
     * Like {@link #to(KStream, String, Function)}, with options: id, partition, intake topic, serdes.
     *
     * @param stream  the records to delay
     * @param target  the topic to deliver to
     * @param delay   the delay of a record after its timestamp
     * @param options see {@link DelayOptions}
     * @param <K>     key type
     * @param <V>     value type
     */
    public static <K, V> void to(
            KStream<K, V> stream,
            String target,
            Function<FixedKeyRecord<K, V>, Duration> delay,
            DelayOptions<K, V> options) {
        if (delay == null) {
            throw new IllegalArgumentException(
                    "delay is null; give a function such as record -> Duration.ofMinutes(30)");
        }
        KStream<K, V> delayed = stream.processValues(schedule(
                target,
                record -> Delay.until(Instant.ofEpochMilli(record.timestamp()).plus(delay.apply(record))),
                options));
        if (options.produced() == null) {
            delayed.to(options.intakeTopic());
        } else {
            delayed.to(options.intakeTopic(), options.produced());
        }
    }

    /**
     * A processor that adds the control headers of a schedule to every record (key and value unchanged): send its
     * output to the intake topic.
     *
     * @param target  the topic to deliver to
     * @param when    when a record is due, e.g. {@code record -> Delay.until(deadline(record.value()))}
     * @param options id and partition; the intake and serdes are the caller's business here
     * @param <K>     key type
     * @param <V>     value type
     * @return for {@link KStream#processValues}
     * @throws IllegalArgumentException if the target is not a legal topic name or is internal
     */
    public static <K, V> FixedKeyProcessorSupplier<K, V, V> schedule(
            String target, Function<FixedKeyRecord<K, V>, Delay> when, DelayOptions<K, V> options) {
        DelayedRecords.to(target, null, null, Delay.ofMillis(0)).intake(options.intakeTopic()); // checks the target now
        return () -> new HeaderProcessor<>(record -> {
            DelayedRecords.Schedule<K, V> schedule = DelayedRecords.to(
                            target, record.key(), record.value(), when.apply(record))
                    .intake(options.intakeTopic())
                    .withHeaders(userHeaders(record.headers()));
            if (options.id() != null) {
                schedule = schedule.withId(options.id().apply(record));
            }
            return withPartition(schedule, record, options);
        });
    }

    private static <K, V> ProducerRecord<K, V> withPartition(
            DelayedRecords.Schedule<K, V> schedule, FixedKeyRecord<K, V> record, DelayOptions<K, V> options) {
        Integer partition =
                options.partition() == null ? null : options.partition().apply(record);
        return (partition == null ? schedule : schedule.withPartition(partition)).toRecord();
    }

    /**
     * Writes every record of {@code stream} to the intake topic as a series (docs/recurring-schedules.md): delivered
     * to {@code target} at every occurrence of its {@link Repeat}, until its count or end, or a cancel of its id.
     *
     * <pre>{@code
     * Delays.series(builder.<String, String>stream("reports.requested"), "reports.due",
     *         record -> Repeat.cron(record.value(), ZoneId.of("Europe/Berlin")),
     *         DelayOptions.<String, String>defaults().withId(record -> "report:" + record.key()));
     * }</pre>
     *
     * @param stream  the records to repeat
     * @param target  the topic to deliver to
     * @param repeat  the schedule of a record
     * @param options with an id ({@link DelayOptions#withId}): a series needs one
     * @param <K>     key type
     * @param <V>     value type
     * @throws IllegalArgumentException if {@code options} has no id, or the target is refused
     */
    public static <K, V> void series(
            KStream<K, V> stream,
            String target,
            Function<FixedKeyRecord<K, V>, Repeat> repeat,
            DelayOptions<K, V> options) {
        KStream<K, V> repeated = stream.processValues(scheduleSeries(target, repeat, options));
        if (options.produced() == null) {
            repeated.to(options.intakeTopic());
        } else {
            repeated.to(options.intakeTopic(), options.produced());
        }
    }

    /**
     * A processor that adds the control headers of a series to every record (key and value unchanged): send its
     * output to the intake topic.
     *
     * @param target  the topic to deliver to
     * @param repeat  the schedule of a record
     * @param options with an id ({@link DelayOptions#withId}); partition as for {@link #schedule}
     * @param <K>     key type
     * @param <V>     value type
     * @return for {@link KStream#processValues}
     * @throws IllegalArgumentException if {@code options} has no id or {@code repeat} is null, or the target is
     *                                  refused
     */
    public static <K, V> FixedKeyProcessorSupplier<K, V, V> scheduleSeries(
            String target, Function<FixedKeyRecord<K, V>, Repeat> repeat, DelayOptions<K, V> options) {
        if (repeat == null || options.id() == null) {
            throw new IllegalArgumentException("a series needs a schedule and an id: give a function such as "
                    + "record -> Repeat.every(Duration.ofHours(1)), and DelayOptions.withId(record -> ...)");
        }
        DelayedRecords.to(target, null, null, Delay.ofMillis(0)).intake(options.intakeTopic()); // checks the target now
        return () -> new HeaderProcessor<>(record -> withPartition(
                DelayedRecords.series(
                                target,
                                record.key(),
                                record.value(),
                                options.id().apply(record),
                                repeat.apply(record))
                        .intake(options.intakeTopic())
                        .withHeaders(userHeaders(record.headers())),
                record,
                options));
    }

    /**
     * A processor that turns every record into a cancel of the pending message with the id it names (key kept, so the
     * cancel lands on the schedule's intake partition when the keys agree; value set to null): send its output to the
     * intake topic.
     *
     * @param id  the id to cancel, e.g. {@code record -> "order-timeout:" + record.key()}
     * @param <K> key type
     * @param <V> value type
     * @return for {@link KStream#processValues}
     */
    public static <K, V> FixedKeyProcessorSupplier<K, V, V> cancel(Function<FixedKeyRecord<K, V>, String> id) {
        if (id == null) {
            throw new IllegalArgumentException(
                    "id is null; give a function such as record -> \"order-timeout:\" + record.key()");
        }
        return () -> new HeaderProcessor<>(record -> DelayedRecords.<K, V>cancel(id.apply(record))
                .withKey(record.key())
                .toRecord());
    }

    private static Headers userHeaders(Headers headers) {
        List<Header> user = new ArrayList<>();
        for (Header h : headers) {
            if (!DelayHeaders.isControl(h.key())) {
                user.add(h);
            }
        }
        return new RecordHeaders(user.toArray(Header[]::new));
    }

    /** Forwards each record with the headers (and, for a cancel, the null value) of the intake record built for it. */
    private static final class HeaderProcessor<K, V> implements FixedKeyProcessor<K, V, V> {
        private final Function<FixedKeyRecord<K, V>, ProducerRecord<K, V>> build;
        private FixedKeyProcessorContext<K, V> context;

        HeaderProcessor(Function<FixedKeyRecord<K, V>, ProducerRecord<K, V>> build) {
            this.build = build;
        }

        @Override
        public void init(FixedKeyProcessorContext<K, V> context) {
            this.context = context;
        }

        @Override
        public void process(FixedKeyRecord<K, V> record) {
            ProducerRecord<K, V> intake = build.apply(record);
            context.forward(
                    record.withHeaders(new RecordHeaders(intake.headers().toArray()))
                            .withValue(intake.value()));
        }
    }
}

package io.delaybridge.connectors;

import io.delaybridge.schemas.ContractViolation;
import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.schemas.IntakeParser;
import io.delaybridge.schemas.TargetPolicy;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;

/**
 * Builds the records that schedule and cancel delayed messages: ordinary {@link ProducerRecord}s for the intake
 * topic with the control headers of {@link DelayHeaders} set. Send them with any {@code Producer}.
 *
 * <pre>{@code
 * Properties props = new Properties();
 * props.put("bootstrap.servers", "localhost:9092");
 * try (Producer<String, String> producer =
 *         new KafkaProducer<>(props, new StringSerializer(), new StringSerializer())) {
 *     // deliver {"order":42} to "orders.timeout" in 30 minutes, under an id that can cancel it
 *     producer.send(DelayedRecords.to("orders.timeout", "order-42", "{\"order\":42}", Delay.of(Duration.ofMinutes(30)))
 *             .withId("order-42-timeout")
 *             .toRecord());
 *
 *     // the order was paid: the timeout must not fire
 *     producer.send(DelayedRecords.<String, String>cancel("order-42-timeout")
 *             .withKey("order-42")
 *             .toRecord());
 * }
 * }</pre>
 *
 * <p>The first record goes to {@value #DEFAULT_INTAKE} with headers {@code delay-target: orders.timeout},
 * {@code delay-ms: 1800000} and {@code delay-id: order-42-timeout}; thirty minutes after its timestamp a consumer of
 * {@code orders.timeout} receives key {@code order-42}, the same value and user headers, plus the provenance headers
 * the bridge adds. The second record carries only {@code delay-cancel: order-42-timeout} and a null value.
 *
 * <h2>Options</h2>
 * {@link Schedule} and {@link Cancel} are immutable; each {@code with...} returns a copy:
 * <ul>
 *   <li>{@link Schedule#withId(String)}: a message id. Scheduling again with the same id replaces the pending
 *       message (reschedules it); {@link #cancel(String)} needs it. Without one, the bridge uses
 *       {@code <intake topic>-<partition>-<offset>}, which the producer does not know in advance.</li>
 *   <li>{@link Schedule#withPartition(int)}: the partition of the <em>target</em> topic to deliver to. The intake
 *       partition is chosen by the producer's partitioner on the key, as for any record.</li>
 *   <li>{@link Schedule#withHeaders(Iterable)}: user headers, delivered unchanged.</li>
 *   <li>{@code intake(topic)} on either: the intake topic if the bridge was configured with another name.</li>
 * </ul>
 *
 * <h2>Validation</h2>
 * Mistakes that the bridge would send to the deadletter topic fail here, at once, with an
 * {@link IllegalArgumentException} naming the value and the fix: a null, illegal or internal target topic, a target
 * equal to the intake topic, a blank or over-long id, a negative partition, a user header that would be read as a
 * control header. Checks that depend on the bridge's configuration (its allowed targets, its maximum delay, its
 * deadletter topic name) stay with the bridge, which deadletters such records with a reason.
 *
 * <h2>Cancelling</h2>
 * Give a cancel the key of the record it cancels ({@link Cancel#withKey(Object)}): the same key lands on the same
 * intake partition, so the bridge reads the cancel after the schedule. With different partitions a lagging partition
 * could let the cancel arrive first, find nothing to cancel, and the message would be delivered after all.
 */
public final class DelayedRecords {

    /** The intake topic the bridge reads unless configured otherwise. */
    public static final String DEFAULT_INTAKE = "delay-intake";

    private DelayedRecords() {}

    /**
     * Starts a record that the bridge delivers to {@code target} when {@code delay} is due.
     *
     * @param target topic to deliver to; must exist when the record is due
     * @param key    record key, delivered unchanged; also picks the intake partition; may be null
     * @param value  record value, delivered unchanged; may be null (a delayed tombstone)
     * @param delay  when it is due
     * @param <K>    key type
     * @param <V>    value type
     * @return the record to send, via {@link Schedule#toRecord()}, with options to add first
     * @throws IllegalArgumentException if {@code target} is null, not a legal topic name, internal ({@code _...}) or
     *                                  the intake topic, or {@code delay} is null
     */
    public static <K, V> Schedule<K, V> to(String target, K key, V value, Delay delay) {
        if (delay == null) {
            throw new IllegalArgumentException("delay is null; give Delay.of(duration), Delay.until(instant) or"
                    + " Delay.ofMillis(0) to deliver at once");
        }
        checkTarget(target, DEFAULT_INTAKE);
        return new Schedule<>(
                DEFAULT_INTAKE, target, key, value, List.of(delay.toHeader()), delay, null, null, List.of());
    }

    /**
     * Starts a recurring record (a series): delivered to {@code target} at every occurrence of {@code repeat}, key,
     * value and user headers each time, until its count or end, or a cancel of {@code id}, ends it.
     *
     * <pre>{@code
     * producer.send(DelayedRecords.series("reports.nightly", "report", "{}", "nightly-report",
     *                 Repeat.cron("30 2 * * *", ZoneId.of("Europe/Berlin")))
     *         .toRecord());
     * }</pre>
     *
     * @param target topic to deliver to
     * @param key    record key, delivered unchanged; may be null
     * @param value  record value, delivered unchanged; may be null
     * @param id     the series id ({@value DelayHeaders#ID}), required: a cancel of it ends the series, and a new
     *               series under it replaces this one
     * @param repeat when it is delivered
     * @param <K>    key type
     * @param <V>    value type
     * @return the record to send, via {@link Schedule#toRecord()}; {@link Schedule#withPartition},
     *     {@link Schedule#withHeaders} and {@code intake} apply as for a one-shot record
     * @throws IllegalArgumentException if the target or id is refused, or {@code repeat} is null
     */
    public static <K, V> Schedule<K, V> series(String target, K key, V value, String id, Repeat repeat) {
        if (repeat == null) {
            throw new IllegalArgumentException(
                    "repeat is null; give Repeat.cron(expression, zone) or Repeat.every(interval)");
        }
        checkTarget(target, DEFAULT_INTAKE);
        checkId(id, DelayHeaders.ID);
        return new Schedule<>(DEFAULT_INTAKE, target, key, value, repeat.headers(), repeat, id, null, List.of());
    }

    /**
     * Starts a record that cancels the pending message with id {@code id}. Cancelling a message that is no longer
     * pending (delivered, never scheduled, already cancelled) is not an error.
     *
     * @param id  the id given with {@link Schedule#withId(String)}
     * @param <K> key type of the producer it is sent with
     * @param <V> value type of the producer it is sent with; the value is always null
     * @return the cancel record, via {@link Cancel#toRecord()}, with options to add first
     * @throws IllegalArgumentException if {@code id} is null, blank or longer than
     *                                  {@value IntakeParser#MAX_ID_BYTES} UTF-8 bytes
     */
    public static <K, V> Cancel<K, V> cancel(String id) {
        checkId(id, DelayHeaders.CANCEL);
        return new Cancel<>(DEFAULT_INTAKE, id, null);
    }

    /**
     * A record to schedule, before it is sent. Immutable: every {@code with...} returns a new instance.
     *
     * @param <K> key type
     * @param <V> value type
     */
    public static final class Schedule<K, V> {
        private final String intake;
        private final String target;
        private final K key;
        private final V value;
        /** When: the delay's header, or a series' headers. */
        private final List<Header> when;
        /** The delay or the series, for {@link #toString}. */
        private final Object whenText;

        private final String id;
        private final Integer partition;
        private final List<Header> headers;

        private Schedule(
                String intake,
                String target,
                K key,
                V value,
                List<Header> when,
                Object whenText,
                String id,
                Integer partition,
                List<Header> headers) {
            this.intake = intake;
            this.target = target;
            this.key = key;
            this.value = value;
            this.when = when;
            this.whenText = whenText;
            this.id = id;
            this.partition = partition;
            this.headers = headers;
        }

        /**
         * Sets the message id ({@value DelayHeaders#ID}). Ids are global across the bridge: a new record with the id
         * of a pending message replaces it, and {@link DelayedRecords#cancel(String)} removes it. Ids are compared
         * byte for byte, so {@code "a"} and {@code "a "} are different ids.
         *
         * @param id not blank, at most {@value IntakeParser#MAX_ID_BYTES} UTF-8 bytes
         * @return a copy with the id
         * @throws IllegalArgumentException if the id is null, blank or too long
         */
        public Schedule<K, V> withId(String id) {
            checkId(id, DelayHeaders.ID);
            return new Schedule<>(intake, target, key, value, when, whenText, id, partition, headers);
        }

        /**
         * Sets the partition of the target topic the record is delivered to ({@value DelayHeaders#PARTITION}).
         * Without it, the bridge's producer partitions on the key. A partition the target topic does not have
         * sends the record to the deadletter topic when it is due.
         *
         * @param partition a partition of the target topic, zero or more
         * @return a copy with the partition
         * @throws IllegalArgumentException if {@code partition} is negative
         */
        public Schedule<K, V> withPartition(int partition) {
            if (partition < 0) {
                throw new IllegalArgumentException(DelayHeaders.PARTITION + ": " + partition
                        + " is not a partition; use 0 or more, or leave it out to partition on the key");
            }
            return new Schedule<>(intake, target, key, value, when, whenText, id, partition, headers);
        }

        /**
         * Sets the user headers, replacing any set before. They are delivered unchanged and in order, duplicates and
         * null values included. The control headers are this class's business: a header named like one
         * ({@code delay-target}, {@code delay-ms}, ...) or any other name starting with {@value DelayHeaders#PREFIX}
         * is rejected. The exception is the provenance headers a delivered record carries ({@code delay-due-at},
         * {@code delay-origin}, ...; see {@link DelayHeaders#isProvenance(String)}), which the bridge ignores on the
         * intake, so a delivered record's headers can be passed on as they are, once its {@code delay-id} is removed.
         *
         * @param headers e.g. {@code consumerRecord.headers()}; copied
         * @return a copy with the headers
         * @throws IllegalArgumentException if {@code headers} is null or holds a control header
         */
        public Schedule<K, V> withHeaders(Iterable<Header> headers) {
            if (headers == null) {
                throw new IllegalArgumentException("headers is null; pass an empty list for none");
            }
            List<Header> copy = new ArrayList<>();
            for (Header h : headers) {
                checkUserHeader(h);
                byte[] v = h.value();
                copy.add(new RecordHeader(h.key(), v == null ? null : v.clone()));
            }
            return new Schedule<>(intake, target, key, value, when, whenText, id, partition, List.copyOf(copy));
        }

        /**
         * Sets the intake topic, for a bridge configured with one other than {@value DelayedRecords#DEFAULT_INTAKE}.
         *
         * @param topic the bridge's intake topic
         * @return a copy for that intake
         * @throws IllegalArgumentException if {@code topic} is null or blank, or is the target topic
         */
        public Schedule<K, V> intake(String topic) {
            checkIntake(topic);
            checkTarget(target, topic);
            return new Schedule<>(topic, target, key, value, when, whenText, id, partition, headers);
        }

        /**
         * Builds the intake record: control headers first ({@value DelayHeaders#TARGET}, the delay or the series, then
         * {@value DelayHeaders#ID} and {@value DelayHeaders#PARTITION} if set), then the user headers. No partition
         * and no timestamp are set on the record itself: the producer's partitioner picks the intake partition from
         * the key, and the delay counts from the timestamp the producer or broker gives it.
         *
         * @return a new record for {@code producer.send(...)}
         */
        public ProducerRecord<K, V> toRecord() {
            List<Header> all = new ArrayList<>(headers.size() + 4);
            all.add(header(DelayHeaders.TARGET, target));
            all.addAll(when);
            if (id != null) {
                all.add(header(DelayHeaders.ID, id));
            }
            if (partition != null) {
                all.add(header(DelayHeaders.PARTITION, partition.toString()));
            }
            for (Header h : headers) {
                // fresh copies: a record's headers are mutable and may be changed by the caller or interceptors
                byte[] v = h.value();
                all.add(new RecordHeader(h.key(), v == null ? null : v.clone()));
            }
            return new ProducerRecord<>(intake, null, null, key, value, all);
        }

        @Override
        public String toString() {
            return "DelayedRecords.Schedule[intake=" + intake + ", target=" + target + ", " + whenText
                    + (id == null ? "" : ", id=" + ContractViolation.quote(id))
                    + (partition == null ? "" : ", partition=" + partition)
                    + ", headers=" + headers.size() + "]";
        }
    }

    /**
     * A cancel record, before it is sent. Immutable: every {@code with...} returns a new instance.
     *
     * @param <K> key type
     * @param <V> value type; the value is always null
     */
    public static final class Cancel<K, V> {
        private final String intake;
        private final String id;
        private final K key;

        private Cancel(String intake, String id, K key) {
            this.intake = intake;
            this.id = id;
            this.key = key;
        }

        /**
         * Sets the record key. Use the key of the record being cancelled, so that both land on the same intake
         * partition and the bridge reads them in order (see "Cancelling" above). The bridge itself ignores the key of
         * a cancel.
         *
         * @param key the key of the scheduled record, may be null
         * @return a copy with the key
         */
        public Cancel<K, V> withKey(K key) {
            return new Cancel<>(intake, id, key);
        }

        /**
         * Sets the intake topic, for a bridge configured with one other than {@value DelayedRecords#DEFAULT_INTAKE}.
         *
         * @param topic the bridge's intake topic
         * @return a copy for that intake
         * @throws IllegalArgumentException if {@code topic} is null or blank
         */
        public Cancel<K, V> intake(String topic) {
            checkIntake(topic);
            return new Cancel<>(topic, id, key);
        }

        /** @return a new record with a null value and the single header {@value DelayHeaders#CANCEL} */
        public ProducerRecord<K, V> toRecord() {
            return new ProducerRecord<>(intake, null, null, key, null, List.of(header(DelayHeaders.CANCEL, id)));
        }

        @Override
        public String toString() {
            return "DelayedRecords.Cancel[intake=" + intake + ", id=" + ContractViolation.quote(id) + "]";
        }
    }

    private static Header header(String name, String value) {
        return new RecordHeader(name, value.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The bridge's own target rules, minus what only the bridge knows (its allow-list and deadletter topic name),
     * so that what passes here is not rejected there as INVALID_TARGET or an internal or looping target.
     */
    private static void checkTarget(String target, String intake) {
        if (target == null) {
            throw new IllegalArgumentException(DelayHeaders.TARGET + ": null; name the topic to deliver to");
        }
        try {
            new TargetPolicy(intake, intake, List.of()).check(target);
        } catch (ContractViolation v) {
            throw new IllegalArgumentException(v.getMessage());
        }
    }

    private static void checkIntake(String topic) {
        if (topic == null || topic.isBlank()) {
            throw new IllegalArgumentException("intake topic " + ContractViolation.quote(topic)
                    + " is blank; give the topic the bridge reads (default " + DEFAULT_INTAKE + ")");
        }
    }

    /** Same limits as {@link IntakeParser}: not blank, at most {@value IntakeParser#MAX_ID_BYTES} UTF-8 bytes. */
    private static void checkId(String id, String header) {
        if (id == null || id.isBlank()) {
            throw new IllegalArgumentException(
                    header + ": " + ContractViolation.quote(id) + " is not a message id: blank; give a non-blank id");
        }
        int bytes = id.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > IntakeParser.MAX_ID_BYTES) {
            throw new IllegalArgumentException(header + ": " + ContractViolation.quote(id) + " is not a message id: "
                    + bytes + " bytes; ids are at most " + IntakeParser.MAX_ID_BYTES + " UTF-8 bytes");
        }
    }

    private static void checkUserHeader(Header h) {
        if (h == null) {
            throw new IllegalArgumentException("headers holds a null header");
        }
        String name = h.key();
        if (DelayHeaders.isControl(name) && !DelayHeaders.isProvenance(name)) {
            throw new IllegalArgumentException(
                    "header " + ContractViolation.quote(name) + " is reserved: names starting"
                            + " with \"" + DelayHeaders.PREFIX + "\" are control headers; set the target and delay with"
                            + " DelayedRecords.to(...), the id with withId, the partition with withPartition, and remove"
                            + " other delay- headers from the user headers");
        }
    }
}

package io.delaybridge.schemas;

/**
 * The header contract: the record headers that tell the bridge when a record is due and where it goes.
 *
 * <p>Produce an ordinary record to the intake topic ({@code delay-intake}) and add control headers. Header
 * values are UTF-8 strings, so any Kafka client can write them (Java, librdkafka/kcat, Go, Python). Every
 * header whose name does not start with {@value #PREFIX} passes through untouched, as do the record key and
 * value (a {@code null} value included: a delayed tombstone for a compacted topic is legitimate).
 *
 * <pre>{@code
 * ProducerRecord<String, String> record = new ProducerRecord<>("delay-intake", "order-42", "{\"order\":42}");
 * record.headers()
 *     .add(DelayHeaders.TARGET, "orders.timeout".getBytes(StandardCharsets.UTF_8))
 *     .add(DelayHeaders.DELAY_MS, "30m".getBytes(StandardCharsets.UTF_8))
 *     .add(DelayHeaders.ID, "order-42-timeout".getBytes(StandardCharsets.UTF_8));
 * producer.send(record);
 * // thirty minutes after the record's timestamp, a consumer of "orders.timeout" receives
 * // key "order-42", the same value and user headers, plus delay-id, delay-due-at, delay-origin, delay-attempt
 * }</pre>
 *
 * <h2>Scheduling a record</h2>
 * <table>
 *   <caption>Control headers of a scheduling record</caption>
 *   <tr><th>header</th><th>required</th><th>value</th></tr>
 *   <tr><td>{@value #TARGET}</td><td>yes</td><td>topic to deliver to</td></tr>
 *   <tr><td>{@value #DELAY_MS}</td><td rowspan="2">exactly one</td>
 *       <td>delay after the record timestamp: {@code 1500}, {@code 250ms}, {@code 30s}, {@code 1.5s}, {@code 5m},
 *       {@code 2h}, {@code 7d}, {@code PT30M}</td></tr>
 *   <tr><td>{@value #UNTIL}</td>
 *       <td>absolute due time: epoch milliseconds or {@code 2026-11-22T08:00:00Z} / {@code 2026-11-22T09:00:00+01:00}</td></tr>
 *   <tr><td>{@value #ID}</td><td>no</td><td>message id; default {@code <intake topic>-<partition>-<offset>}</td></tr>
 *   <tr><td>{@value #PARTITION}</td><td>no</td><td>target partition; default: the target's partitioner on the key</td></tr>
 * </table>
 *
 * <p>A due time in the past means "now". The delay counts from the intake record's timestamp, not from the
 * moment the bridge reads it, so an outage of the bridge does not push due times back.
 *
 * <h2>Rescheduling and cancelling</h2>
 * Ids are global. A new record with the {@value #ID} of a pending message replaces it (that is how a message is
 * rescheduled), unless it is older than the pending version (an earlier timestamp; the same timestamp and a lower
 * offset of the same partition): then it is dropped. A record carrying only {@code delay-cancel: <id>} removes the
 * pending message with that id and is itself never delivered.
 *
 * <h2>What comes out</h2>
 * <ul>
 *   <li>Delivered record: key, value and user headers unchanged, plus {@value #ID}, {@value #DUE_AT},
 *       {@value #ORIGIN} and {@value #ATTEMPT}. Consumers can drop repeats by {@value #ID}.</li>
 *   <li>Deadletter record ({@code delay-deadletter}): the original key, value and all original headers, plus
 *       {@value #ERROR} (an {@link ErrorCode} name), {@value #ERROR_MESSAGE}, {@value #ORIGIN} and
 *       {@value #ATTEMPT}. Once fixed, it can be produced to the intake again as is: the intake ignores
 *       the headers the bridge itself adds (see {@link #isProvenance(String)}).</li>
 * </ul>
 *
 * <p>Header names are case-sensitive, like all Kafka header names. Any other {@code delay-} header is rejected
 * with {@link ErrorCode#UNKNOWN_HEADER}, so a typo such as {@code delay-msec} fails loudly instead of delivering
 * at once.
 */
public final class DelayHeaders {

    /** Prefix reserved for control and provenance headers; every header without it passes through. */
    public static final String PREFIX = "delay-";

    /** Required on a scheduling record: the topic the record is delivered to. */
    public static final String TARGET = "delay-target";

    /**
     * Delay after the intake record's timestamp: integer milliseconds ({@code 1500}), a number with a unit
     * ({@code 250ms}, {@code 30s}, {@code 1.5s}, {@code 5m}, {@code 2h}, {@code 7d}) or an ISO-8601 duration
     * ({@code PT30M}, {@code P3D}). Exclusive with {@link #UNTIL}. See {@link DelayText#parseDelayMillis(String)}.
     */
    public static final String DELAY_MS = "delay-ms";

    /**
     * Absolute due time: epoch milliseconds or an ISO-8601 instant with an offset
     * ({@code 2026-11-22T08:00:00Z}). Exclusive with {@link #DELAY_MS}.
     * See {@link DelayText#parseInstantMillis(String)}.
     */
    public static final String UNTIL = "delay-until";

    /**
     * Optional message id, at most 512 UTF-8 bytes, compared byte for byte (not trimmed). A record with the id
     * of a pending message replaces it, unless it is the older of the two. Also added to every delivered record.
     */
    public static final String ID = "delay-id";

    /** {@code delay-cancel: <id>} cancels the pending message with that id; carries no other control header. */
    public static final String CANCEL = "delay-cancel";

    /** Optional target partition, a non-negative integer; otherwise the target topic's partitioner decides. */
    public static final String PARTITION = "delay-partition";

    /** Provenance, added on delivery: the due time in epoch milliseconds. */
    public static final String DUE_AT = "delay-due-at";

    /** Provenance, added on delivery and deadlettering: {@code topic/partition/offset} of the intake record. */
    public static final String ORIGIN = "delay-origin";

    /** Provenance, added on delivery and deadlettering: the delivery attempt, 1 on the first try. */
    public static final String ATTEMPT = "delay-attempt";

    /**
     * Provenance, added on the delivery of a series' occurrence: its place in the schedule, 1 for the first. With
     * {@value #ID} (the series id) it names the occurrence: consumers drop repeats by the pair.
     */
    public static final String OCCURRENCE = "delay-occurrence";

    /**
     * The bridge's own, in a stored series message: its definition and the pending occurrence ({@link SeriesRecord}).
     * Never delivered to a target; ignored on the intake.
     */
    public static final String SERIES = "delay-series";

    /** Deadletter only: the {@link ErrorCode} name saying why the record could not be delivered. */
    public static final String ERROR = "delay-error";

    /** Deadletter only: human-readable reason naming the header, the value and what is accepted. */
    public static final String ERROR_MESSAGE = "delay-error-message";

    /**
     * Delay rules: the name of the rule that wrote an intake record. Not a control header (no {@value #PREFIX}
     * prefix), so it passes through the intake and reaches the delivered record.
     */
    public static final String RULE = "x-delay-rule";

    /**
     * Delay rules: {@code topic/partition/offset} of the source record a rule read. Not a control header, so it
     * reaches the delivered record: a consumer can tell which source record a delivery came from.
     */
    public static final String RULE_SOURCE = "x-delay-source";

    private DelayHeaders() {}

    /**
     * Whether a header belongs to the bridge (starts with {@value #PREFIX}) rather than passing through.
     *
     * @param headerName a Kafka header name
     * @return true for contract, provenance and unknown {@code delay-} headers
     */
    public static boolean isControl(String headerName) {
        return headerName != null && headerName.startsWith(PREFIX);
    }

    /**
     * Whether a header is one the bridge adds itself on delivery or deadlettering ({@value #DUE_AT},
     * {@value #ORIGIN}, {@value #ATTEMPT}, {@value #ERROR}, {@value #ERROR_MESSAGE}, {@value #OCCURRENCE},
     * {@value #SERIES}). The intake ignores these,
     * so a deadletter or delivered record can be produced to the intake again without editing its headers.
     * {@value #ID} is not among them: on the intake it is a contract header and is honoured.
     *
     * @param name a Kafka header name
     * @return true for the provenance headers listed above
     */
    public static boolean isProvenance(String name) {
        if (name == null) {
            return false;
        }
        switch (name) {
            case DUE_AT:
            case ORIGIN:
            case ATTEMPT:
            case ERROR:
            case ERROR_MESSAGE:
            case OCCURRENCE:
            case SERIES:
                return true;
            default:
                return false;
        }
    }
}

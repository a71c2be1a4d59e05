package io.delaybridge.schemas;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * Reads the control headers of an intake record (see {@link DelayHeaders}) into an {@link IntakeCommand}, or
 * says precisely why the record cannot be accepted.
 *
 * <pre>{@code
 * IntakeParser parser = new IntakeParser(policy, Duration.ofDays(365).toMillis());
 * try {
 *     IntakeCommand command = parser.parse(record.headers(), record.timestamp(),
 *             IntakeParser.defaultId(record.topic(), record.partition(), record.offset()));
 * } catch (ContractViolation v) {
 *     deadletter(record, v.code(), v.getMessage());
 * }
 * }</pre>
 *
 * <h2>Order of checks</h2>
 * A record with several problems always gets the same verdict, the first that applies:
 * <ol>
 *   <li>Header level, headers in record order: {@link ErrorCode#UNKNOWN_HEADER} for a {@code delay-} header
 *       outside the contract, {@link ErrorCode#DUPLICATE_HEADER} for the second occurrence of a control header,
 *       {@link ErrorCode#INVALID_HEADER} for a control header value that is not UTF-8. Provenance headers
 *       ({@link DelayHeaders#isProvenance(String)}) are skipped unread, and non-control headers are never
 *       looked at.</li>
 *   <li>If {@value DelayHeaders#CANCEL} is present, {@link ErrorCode#INVALID_CANCEL} when any other control
 *       header accompanies it, then when its id is blank or longer than {@value #MAX_ID_BYTES} bytes.</li>
 *   <li>Otherwise, a schedule: target ({@link ErrorCode#MISSING_TARGET}, then the {@link TargetPolicy}),
 *       delay ({@link ErrorCode#MISSING_DELAY}, {@link ErrorCode#CONFLICTING_DELAY},
 *       {@link ErrorCode#INVALID_DELAY} including overflow of the due time, {@link ErrorCode#DELAY_TOO_LONG}),
 *       id ({@link ErrorCode#INVALID_ID}), partition ({@link ErrorCode#INVALID_PARTITION}).</li>
 * </ol>
 *
 * <h2>Values</h2>
 * A {@code null} header value counts as empty. {@value DelayHeaders#TARGET}, the delay headers and
 * {@value DelayHeaders#PARTITION} are read with surrounding whitespace removed (no topic name or number contains
 * any). Ids, in {@value DelayHeaders#ID} and {@value DelayHeaders#CANCEL}, are taken byte for byte: a cancel must
 * match the id it cancels exactly. The default id ({@link #defaultId}) is the caller's; the parser does not check
 * that explicit ids stay clear of that shape.
 *
 * <p>Immutable and thread-safe.
 */
public final class IntakeParser {

    /** Longest accepted message id in UTF-8 bytes; ids are Redis keys and travel in every delivered record. */
    public static final int MAX_ID_BYTES = 512;

    private static final int TARGET = 0;
    private static final int DELAY_MS = 1;
    private static final int UNTIL = 2;
    private static final int ID = 3;
    private static final int CANCEL = 4;
    private static final int PARTITION = 5;
    private static final String[] NAMES = {
        DelayHeaders.TARGET, DelayHeaders.DELAY_MS, DelayHeaders.UNTIL,
        DelayHeaders.ID, DelayHeaders.CANCEL, DelayHeaders.PARTITION,
    };

    private final TargetPolicy policy;
    private final long maxDelayMillis;

    /**
     * @param policy         which targets are allowed
     * @param maxDelayMillis longest accepted delay from the record timestamp to the due time
     * @throws IllegalArgumentException if {@code maxDelayMillis} is negative
     */
    public IntakeParser(TargetPolicy policy, long maxDelayMillis) {
        this.policy = Objects.requireNonNull(policy, "policy");
        if (maxDelayMillis < 0) {
            throw new IllegalArgumentException("maxDelayMillis must be >= 0, was " + maxDelayMillis);
        }
        this.maxDelayMillis = maxDelayMillis;
    }

    /**
     * Reads an intake record's headers.
     *
     * @param headers               the record's headers
     * @param recordTimestampMillis the record's timestamp, the base of {@value DelayHeaders#DELAY_MS} and of the
     *                              maximum delay; a record without one ({@code -1}) should be given the time it
     *                              was read
     * @param defaultId             the id to use when the record has no {@value DelayHeaders#ID}, normally
     *                              {@link #defaultId(String, int, long)}
     * @return a {@link IntakeCommand.Schedule} or a {@link IntakeCommand.Cancel}
     * @throws ContractViolation if the record breaks the header contract; see the order of checks above
     */
    public IntakeCommand parse(Headers headers, long recordTimestampMillis, String defaultId) throws ContractViolation {
        Objects.requireNonNull(defaultId, "defaultId");
        Controls c = Controls.read(headers);
        if (c.has(CANCEL)) {
            return cancel(c);
        }
        String target = target(c);
        long dueAt = dueAt(c, recordTimestampMillis);
        String id = c.has(ID) ? checkedId(c, ID, ErrorCode.INVALID_ID) : defaultId;
        Integer partition = c.has(PARTITION) ? partition(c.values[PARTITION]) : null;
        return new IntakeCommand.Schedule(target, dueAt, id, c.has(ID), partition);
    }

    /**
     * The id of a record without {@value DelayHeaders#ID}: unique per intake record, and the same when the record
     * is read again after a restart, so re-reading it replaces rather than duplicates.
     *
     * @param topic     intake topic
     * @param partition intake partition
     * @param offset    offset of the intake record
     * @return {@code topic-partition-offset}, e.g. {@code delay-intake-3-1042}
     */
    public static String defaultId(String topic, int partition, long offset) {
        return topic + "-" + partition + "-" + offset;
    }

    /**
     * The headers that pass through to the delivered record: every header not starting with
     * {@value DelayHeaders#PREFIX}, in their original order, duplicates and {@code null} values kept.
     *
     * @param headers an intake record's headers
     * @return a new, modifiable {@link Headers}
     */
    public static Headers userHeaders(Headers headers) {
        RecordHeaders user = new RecordHeaders();
        if (headers != null) {
            for (Header h : headers) {
                if (!DelayHeaders.isControl(h.key())) {
                    user.add(h);
                }
            }
        }
        return user;
    }

    private static IntakeCommand cancel(Controls c) throws ContractViolation {
        List<String> others = new ArrayList<>();
        for (int i = 0; i < NAMES.length; i++) {
            if (i != CANCEL && c.has(i)) {
                others.add(NAMES[i]);
            }
        }
        if (!others.isEmpty()) {
            throw new ContractViolation(
                    ErrorCode.INVALID_CANCEL,
                    DelayHeaders.CANCEL
                            + ": a cancel record carries only delay-cancel, but this one also has "
                            + String.join(", ", others)
                            + "; send the cancel as a record of its own");
        }
        return new IntakeCommand.Cancel(checkedId(c, CANCEL, ErrorCode.INVALID_CANCEL));
    }

    private String target(Controls c) throws ContractViolation {
        if (!c.has(TARGET)) {
            throw new ContractViolation(
                    ErrorCode.MISSING_TARGET,
                    DelayHeaders.TARGET + ": missing; a record to delay names the topic to deliver it to");
        }
        String target = c.values[TARGET].strip();
        if (target.isEmpty()) {
            throw new ContractViolation(
                    ErrorCode.MISSING_TARGET,
                    DelayHeaders.TARGET + ": " + ContractViolation.quote(c.values[TARGET])
                            + " is blank; give the topic to deliver to");
        }
        policy.check(target);
        return target;
    }

    private long dueAt(Controls c, long timestamp) throws ContractViolation {
        boolean ms = c.has(DELAY_MS);
        boolean until = c.has(UNTIL);
        if (!ms && !until) {
            throw new ContractViolation(
                    ErrorCode.MISSING_DELAY,
                    "no " + DelayHeaders.DELAY_MS + " or " + DelayHeaders.UNTIL
                            + "; give exactly one, e.g. delay-ms: 30s or delay-until: 2026-11-22T08:00:00Z");
        }
        if (ms && until) {
            throw new ContractViolation(
                    ErrorCode.CONFLICTING_DELAY,
                    "both " + DelayHeaders.DELAY_MS + " "
                            + ContractViolation.quote(c.values[DELAY_MS]) + " and " + DelayHeaders.UNTIL + " "
                            + ContractViolation.quote(c.values[UNTIL]) + " given; give exactly one");
        }
        String header = ms ? DelayHeaders.DELAY_MS : DelayHeaders.UNTIL;
        String text = c.values[ms ? DELAY_MS : UNTIL];
        long dueAt;
        try {
            dueAt = ms
                    ? Math.addExact(timestamp, DelayText.parseDelayMillis(text))
                    : DelayText.parseInstantMillis(text);
        } catch (ArithmeticException e) {
            throw new ContractViolation(
                    ErrorCode.INVALID_DELAY,
                    header + ": " + ContractViolation.quote(text) + " is not a delay: the due time overflows; "
                            + DelayText.DELAY_FORMS);
        } catch (IllegalArgumentException e) {
            throw new ContractViolation(ErrorCode.INVALID_DELAY, header + ": " + e.getMessage());
        }
        long delay = dueAt - timestamp;
        // dueAt > timestamp, so a negative difference can only be an overflow: far beyond any maximum
        if (dueAt > timestamp && (delay < 0 || delay > maxDelayMillis)) {
            throw new ContractViolation(
                    ErrorCode.DELAY_TOO_LONG,
                    header + ": " + ContractViolation.quote(text)
                            + " is " + describe(delay) + " after the record timestamp; the longest delay accepted is "
                            + describe(maxDelayMillis));
        }
        return dueAt;
    }

    private static String checkedId(Controls c, int index, ErrorCode code) throws ContractViolation {
        String id = c.values[index];
        if (id.isBlank()) {
            throw new ContractViolation(
                    code,
                    NAMES[index] + ": " + ContractViolation.quote(id)
                            + " is not a message id: blank; leave the header out or give a non-blank id");
        }
        if (c.byteLengths[index] > MAX_ID_BYTES) {
            throw new ContractViolation(
                    code,
                    NAMES[index] + ": " + ContractViolation.quote(id)
                            + " is not a message id: " + c.byteLengths[index] + " bytes; ids are at most "
                            + MAX_ID_BYTES
                            + " UTF-8 bytes");
        }
        return id;
    }

    private static Integer partition(String text) throws ContractViolation {
        String t = text.strip();
        boolean digits = !t.isEmpty() && t.length() <= 10 && DelayText.allAsciiDigits(t);
        if (digits) {
            long p = Long.parseLong(t);
            if (p <= Integer.MAX_VALUE) {
                return (int) p;
            }
        }
        throw new ContractViolation(
                ErrorCode.INVALID_PARTITION,
                DelayHeaders.PARTITION + ": "
                        + ContractViolation.quote(text)
                        + " is not a partition; use a non-negative integer (0, 1, 2, ...)"
                        + " or leave the header out to let the target's partitioner decide");
    }

    private static String describe(long millis) {
        if (millis < 0) {
            return "more than " + Long.MAX_VALUE + "ms";
        }
        String exact = DelayText.formatMillis(millis);
        if (millis < 1000 || !exact.endsWith("ms")) {
            return exact;
        }
        long days = millis / 86_400_000L;
        long hours = millis / 3_600_000L;
        long minutes = millis / 60_000L;
        String about =
                days > 0 ? days + "d" : hours > 0 ? hours + "h" : minutes > 0 ? minutes + "m" : millis / 1000 + "s";
        return exact + " (over " + about + ")";
    }

    /** The decoded control headers of one record, indexed like {@link #NAMES}. */
    private static final class Controls {
        final String[] values = new String[NAMES.length];
        final int[] byteLengths = new int[NAMES.length];

        boolean has(int index) {
            return values[index] != null;
        }

        static Controls read(Headers headers) throws ContractViolation {
            Controls c = new Controls();
            if (headers == null) {
                return c;
            }
            for (Header h : headers) {
                String name = h.key();
                if (!DelayHeaders.isControl(name) || DelayHeaders.isProvenance(name)) {
                    continue;
                }
                int index = indexOf(name);
                if (index < 0) {
                    throw new ContractViolation(
                            ErrorCode.UNKNOWN_HEADER,
                            ContractViolation.quote(name)
                                    + " is not a control header; names starting with \"" + DelayHeaders.PREFIX
                                    + "\" are reserved: use " + String.join(", ", NAMES));
                }
                byte[] raw = h.value() == null ? new byte[0] : h.value();
                if (c.has(index)) {
                    throw new ContractViolation(
                            ErrorCode.DUPLICATE_HEADER,
                            name + ": given more than once (first "
                                    + ContractViolation.quote(c.values[index]) + ", then "
                                    + ContractViolation.quote(new String(raw, StandardCharsets.UTF_8))
                                    + "); give each control header once");
                }
                try {
                    c.values[index] = Utf8.decode(raw, 0, raw.length);
                } catch (Utf8.MalformedUtf8 e) {
                    throw new ContractViolation(
                            ErrorCode.INVALID_HEADER,
                            name + ": value is not valid UTF-8 (" + e.getMessage()
                                    + "); header values are UTF-8 strings");
                }
                c.byteLengths[index] = raw.length;
            }
            return c;
        }

        private static int indexOf(String name) {
            for (int i = 0; i < NAMES.length; i++) {
                if (NAMES[i].equals(name)) {
                    return i;
                }
            }
            return -1;
        }
    }
}

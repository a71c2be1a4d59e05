package io.delaybridge.schemas;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * A series as the bridge runs it: one stored message under the series id whose envelope carries, in the
 * {@value DelayHeaders#SERIES} header, the series headers of its intake record (with the record timestamp, so that
 * {@link SeriesHeaders} reads the same {@link Series} back) and its pending occurrence.
 *
 * <ol>
 *   <li>The intake reads a record with {@link #read}: its first occurrence becomes a schedule under the series id, with
 *       the state header added to the envelope.</li>
 *   <li>When the pending occurrence comes due, the sender takes a {@link #turn}: the missed-run policy decides which
 *       occurrence goes out now (none under {@link Series.Missed#SKIP} after an outage), and the envelope it delivers
 *       names the occurrence after it as pending, or none when the series is over.</li>
 *   <li>The ack stores that envelope ({@link #toStore}) due at {@link Turn#nextDue()} in the same script call that
 *       settles the delivered one, or deletes the message when the series is over.</li>
 * </ol>
 *
 * <p>Pure: time only comes in as {@code now}.
 */
public final class SeriesRecord {

    /** {@link Turn#nextDue()} of a series that is over. */
    public static final long OVER = Long.MIN_VALUE;

    /** {@link #lastDelivered} of a series that delivered nothing yet. */
    public static final long NONE = Long.MIN_VALUE;

    private static final String NUMBER = "n";
    private static final String DUE = "due";
    private static final String AT = "at";
    private static final String LAST = "last";
    private static final String MISSED = "missed";
    private static final String SKIPPED = "skipped";
    private static final String TIMESTAMP = "ts";

    private SeriesRecord() {}

    /**
     * A series record as the intake stores it.
     *
     * @param schedule its first occurrence, as a schedule under the series id
     * @param state    the {@value DelayHeaders#SERIES} header to add to its envelope
     */
    public record First(IntakeCommand.Schedule schedule, Header state) {}

    /**
     * Reads a record that may be a series: the series headers by {@link SeriesHeaders}, then every other control header
     * by {@code parser}, as if the record were a schedule due at the first occurrence.
     *
     * @param parser                the intake's parser: target policy, ids, partition, unknown headers
     * @param headers               the record's headers
     * @param recordTimestampMillis the record timestamp
     * @return the first occurrence and state, or empty for a record that is not a series
     * @throws ContractViolation if the record breaks the contract of a series or of a schedule
     */
    public static Optional<First> read(IntakeParser parser, Headers headers, long recordTimestampMillis)
            throws ContractViolation {
        Optional<Series> parsed = SeriesHeaders.parse(headers, recordTimestampMillis);
        if (parsed.isEmpty()) {
            return Optional.empty();
        }
        Series series = parsed.get();
        SeriesPlanner.Occurrence first = SeriesPlanner.first(series);
        RecordHeaders rest = new RecordHeaders();
        StringBuilder definition = new StringBuilder(TIMESTAMP + "=").append(recordTimestampMillis);
        for (Header h : headers) {
            boolean own = SeriesHeaders.NAMES.contains(h.key()) || DelayHeaders.UNTIL.equals(h.key());
            if (own || DelayHeaders.ID.equals(h.key())) {
                String value = h.value() == null ? "" : new String(h.value(), StandardCharsets.UTF_8);
                definition.append('&').append(h.key()).append('=').append(encode(value));
            }
            if (!own) {
                rest.add(h);
            }
        }
        rest.add(DelayHeaders.UNTIL, utf8(Long.toString(first.dueAtMillis())));
        // a delay-cancel beside the series headers meets delay-until here: INVALID_CANCEL
        IntakeCommand.Schedule schedule =
                (IntakeCommand.Schedule) parser.parse(rest, recordTimestampMillis, series.id());
        return Optional.of(new First(schedule, stateHeader(first, definition.toString())));
    }

    /**
     * A stored series' state.
     *
     * @param series     the series, read again from its headers
     * @param definition the encoded headers and record timestamp, carried along unchanged
     * @param pending    the occurrence stored as next
     */
    public record State(Series series, String definition, SeriesPlanner.Occurrence pending) {}

    /**
     * @param envelope a stored envelope
     * @return its series state, or null if it is a one-shot message
     * @throws CorruptEnvelopeException if the state header does not read as a series
     */
    public static State state(Envelope envelope) {
        Header header = find(envelope.headers(), DelayHeaders.SERIES);
        if (header == null) {
            return null;
        }
        String text = new String(header.value(), StandardCharsets.UTF_8);
        long number = 0;
        long due = 0;
        long timestamp = 0;
        StringBuilder definition = new StringBuilder();
        RecordHeaders headers = new RecordHeaders();
        try {
            for (String pair : text.split("&")) {
                int eq = pair.indexOf('=');
                String name = pair.substring(0, eq);
                String value = pair.substring(eq + 1);
                switch (name) {
                    case NUMBER -> number = Long.parseLong(value);
                    case DUE -> due = Long.parseLong(value);
                    case AT, LAST, MISSED, SKIPPED -> {}
                    default -> {
                        definition.append(definition.length() == 0 ? "" : "&").append(pair);
                        if (TIMESTAMP.equals(name)) {
                            timestamp = Long.parseLong(value);
                        } else {
                            headers.add(name, utf8(URLDecoder.decode(value, StandardCharsets.UTF_8)));
                        }
                    }
                }
            }
            Series series = SeriesHeaders.parse(headers, timestamp).orElseThrow();
            SeriesPlanner.Occurrence pending = number < 1 ? null : new SeriesPlanner.Occurrence(number, due);
            return new State(series, definition.toString(), pending);
        } catch (ContractViolation | RuntimeException e) {
            throw new CorruptEnvelopeException(
                    DelayHeaders.SERIES + " header does not read as a series: " + text + " (" + e.getMessage() + ")");
        }
    }

    /**
     * What one due occurrence of a series does. Each occurrence is handled (delivered or stepped over) by exactly one
     * turn, so the counts of all turns add up without repeats.
     *
     * @param delivered the occurrence to deliver now, or null (missed and skipped)
     * @param next      the occurrence after it, to store as pending; null when the series is over
     * @param envelope  the envelope to deliver (with {@value DelayHeaders#OCCURRENCE}), and, through
     *                  {@link #toStore}, to store again; {@link #tally} reads the counts back from it
     * @param missed    occurrences this turn found past and not current: an outage's, delivered late (a
     *                  {@link Series.Missed#ALL} catch-up) or not at all
     * @param skipped   occurrences this turn drops for good: stepped over by the missed-run policy (see
     *                  {@link SeriesPlanner.Plan#skipped()}), and wall times a {@link Series.DstGap#SKIP} series loses
     *                  to a spring-forward gap before {@code next} ({@link SeriesTimeline#gapSkips})
     */
    public record Turn(
            SeriesPlanner.Occurrence delivered,
            SeriesPlanner.Occurrence next,
            Envelope envelope,
            long missed,
            long skipped) {
        /** @return the next occurrence's due time, or {@link #OVER} */
        public long nextDue() {
            return next == null ? OVER : next.dueAtMillis();
        }
    }

    /**
     * Takes the pending occurrence's turn: {@link SeriesPlanner#advance} applies the missed-run policy at
     * {@code nowMillis}; of what is due, the oldest goes now, and the occurrence after it becomes pending (the rest
     * of a catch-up is due at once, one turn each).
     *
     * @param state     the stored state, with a pending occurrence
     * @param envelope  the stored envelope
     * @param planner   the missed-run policy's planner
     * @param nowMillis the present, not before the pending occurrence's due time
     * @return the turn
     */
    public static Turn turn(State state, Envelope envelope, SeriesPlanner planner, long nowMillis) {
        SeriesPlanner.Plan plan = planner.advance(state.series(), state.pending(), nowMillis);
        SeriesPlanner.Occurrence delivered =
                plan.due().isEmpty() ? null : plan.due().get(0);
        SeriesPlanner.Occurrence next =
                delivered == null ? plan.next() : SeriesPlanner.following(state.series(), delivered);
        // the oldest of several due goes now: it is late, the latest alone is current
        long missed = plan.skipped() + (delivered != null && plan.due().size() > 1 ? 1 : 0);
        long gapSkips = next == null
                ? 0
                : SeriesTimeline.gapSkips(state.series(), state.pending().dueAtMillis(), next.dueAtMillis());
        Tally tally = new Tally(delivered != null, missed, plan.skipped() + gapSkips);
        long last = delivered != null ? delivered.dueAtMillis() : lastDelivered(envelope);
        List<Header> headers = withoutState(envelope.headers());
        headers.add(stateHeader(next, delivered, last, tally, state.definition()));
        if (delivered != null) {
            headers.add(new RecordHeader(DelayHeaders.OCCURRENCE, utf8(Long.toString(delivered.number()))));
        }
        return new Turn(delivered, next, with(envelope, headers), tally.missed(), tally.skipped());
    }

    /**
     * What a turn did, as its envelope carries it to the settle (where the bridge counts it).
     *
     * @param delivered whether the turn delivers an occurrence
     * @param missed    {@link Turn#missed()}
     * @param skipped   {@link Turn#skipped()}
     */
    public record Tally(boolean delivered, long missed, long skipped) {}

    /**
     * @param turned a turn's envelope
     * @return what that turn did; nothing for an envelope without series state
     */
    public static Tally tally(Envelope turned) {
        return new Tally(
                field(turned, AT) != NONE, Math.max(0, field(turned, MISSED)), Math.max(0, field(turned, SKIPPED)));
    }

    /**
     * @param envelope a series' stored (or turned) envelope
     * @return the due time of the last occurrence the series delivered, or {@link #NONE} before its first
     */
    public static long lastDelivered(Envelope envelope) {
        return field(envelope, LAST);
    }

    /**
     * @param envelope an envelope about to be delivered
     * @param dueAt    the due time the store gave its message
     * @return the due time of the occurrence it delivers, or {@code dueAt} for a one-shot message
     */
    public static long dueAt(Envelope envelope, long dueAt) {
        long at = field(envelope, AT);
        return at == NONE ? dueAt : at;
    }

    /** A number in the state header, or {@link #NONE} if the envelope has no state or the state no such field. */
    private static long field(Envelope envelope, String name) {
        Header header = find(envelope.headers(), DelayHeaders.SERIES);
        if (header == null) {
            return NONE;
        }
        String prefix = name + "=";
        for (String pair : new String(header.value(), StandardCharsets.UTF_8).split("&")) {
            if (pair.startsWith(prefix)) {
                return Long.parseLong(pair.substring(prefix.length()));
            }
        }
        return NONE;
    }

    /**
     * @param turned a turn's envelope
     * @return it as stored for the pending occurrence: without {@value DelayHeaders#OCCURRENCE}
     */
    public static Envelope toStore(Envelope turned) {
        List<Header> headers = new ArrayList<>();
        for (Header h : turned.headers()) {
            if (!DelayHeaders.OCCURRENCE.equals(h.key())) {
                headers.add(h);
            }
        }
        return with(turned, headers);
    }

    private static Header stateHeader(SeriesPlanner.Occurrence pending, String definition) {
        return stateHeader(pending, null, NONE, new Tally(false, 0, 0), definition);
    }

    /**
     * {@code n} and {@code due}: the pending occurrence; {@code at}: the one this envelope delivers; {@code last}: the
     * latest delivered so far; {@code missed} and {@code skipped}: the turn's counts, left out when 0. No name of
     * these is one of the definition's ({@code ts} and header names, which start with {@code delay-}).
     */
    private static Header stateHeader(
            SeriesPlanner.Occurrence pending,
            SeriesPlanner.Occurrence delivered,
            long last,
            Tally tally,
            String definition) {
        StringBuilder text = new StringBuilder();
        if (pending == null) {
            text.append(NUMBER + "=0");
        } else {
            text.append(NUMBER + "=")
                    .append(pending.number())
                    .append("&" + DUE + "=")
                    .append(pending.dueAtMillis());
        }
        if (delivered != null) {
            text.append("&" + AT + "=").append(delivered.dueAtMillis());
        }
        if (last != NONE) {
            text.append("&" + LAST + "=").append(last);
        }
        if (tally.missed() > 0) {
            text.append("&" + MISSED + "=").append(tally.missed());
        }
        if (tally.skipped() > 0) {
            text.append("&" + SKIPPED + "=").append(tally.skipped());
        }
        text.append('&').append(definition);
        return new RecordHeader(DelayHeaders.SERIES, utf8(text.toString()));
    }

    private static List<Header> withoutState(List<Header> headers) {
        List<Header> kept = new ArrayList<>();
        for (Header h : headers) {
            if (!DelayHeaders.SERIES.equals(h.key()) && !DelayHeaders.OCCURRENCE.equals(h.key())) {
                kept.add(h);
            }
        }
        return kept;
    }

    private static Envelope with(Envelope e, List<Header> headers) {
        return new Envelope(e.target(), e.partition(), e.origin(), e.key(), e.value(), headers);
    }

    private static Header find(List<Header> headers, String name) {
        for (Header h : headers) {
            if (name.equals(h.key())) {
                return h;
            }
        }
        return null;
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}

package io.delaybridge.bridge.rules;

import io.delaybridge.bridge.delivery.DeliveryRecords;
import io.delaybridge.schemas.ContractViolation;
import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.schemas.ErrorCode;
import io.delaybridge.schemas.IntakeParser;
import io.delaybridge.schemas.SeriesRecord;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.streams.processor.api.Record;

/**
 * Builds what a rule writes: the intake record (control headers, then the source's headers, then the rule's two
 * provenance headers; the due time as {@code delay-until}, the source record's timestamp plus the delay; for a series,
 * its headers from {@link RuleSeries}, with that due time as its start) or the deadletter record of a source record
 * the rule cannot apply.
 *
 * <p>The provenance headers are not control headers (they do not start with {@code delay-}), so the intake passes
 * them through and the consumer of the target topic receives them: {@value #RULE_HEADER} names the rule and
 * {@value #SOURCE_HEADER} is the source record's {@code topic/partition/offset}. Headers of the source record that
 * start with {@code delay-} are not passed on (they would be read as control headers), nor are earlier
 * {@value #RULE_HEADER} and {@value #SOURCE_HEADER} headers.
 */
public final class RuleRecords {

    /** The name of the rule that wrote an intake record ({@link DelayHeaders#RULE}). */
    public static final String RULE_HEADER = DelayHeaders.RULE;

    /** {@code topic/partition/offset} of the source record a rule read ({@link DelayHeaders#RULE_SOURCE}). */
    public static final String SOURCE_HEADER = DelayHeaders.RULE_SOURCE;

    private final IntakeParser verifier;

    /**
     * @param verifier the intake's own parser (same target policy and maximum delay): a record a rule writes is
     *                 checked with it, so what the intake would refuse is refused by the rule, in its transaction
     */
    public RuleRecords(IntakeParser verifier) {
        this.verifier = verifier;
    }

    /** The intake record of {@code rule} for one source record. */
    Record<byte[], byte[]> intake(Rule rule, RuleInput in) throws ContractViolation {
        Headers headers = new RecordHeaders();
        byte[] value;
        if (rule.cancels()) {
            headers.add(DelayHeaders.CANCEL, utf8(rule.cancel().render(rule.name(), in)));
            value = null;
        } else {
            headers.add(DelayHeaders.TARGET, utf8(rule.target()));
            // for a series, its start: the delay too counts from the source record
            long due = rule.delay() != null ? dueAt(rule, in) : rule.series().start(in.timestamp);
            headers.add(DelayHeaders.UNTIL, utf8(Long.toString(due)));
            if (rule.series() != null) {
                rule.series().addHeaders(headers, in.timestamp);
            }
            headers.add(DelayHeaders.ID, utf8(rule.id().render(rule.name(), in)));
            if (rule.partition() != null) {
                headers.add(DelayHeaders.PARTITION, utf8(rule.partition().toString()));
            }
            value = in.value;
        }
        if (in.headers != null) {
            for (Header h : in.headers) {
                if (!DelayHeaders.isControl(h.key())
                        && !RULE_HEADER.equals(h.key())
                        && !SOURCE_HEADER.equals(h.key())) {
                    headers.add(h);
                }
            }
        }
        headers.add(RULE_HEADER, utf8(rule.name()));
        headers.add(SOURCE_HEADER, utf8(in.origin()));
        try {
            if (rule.series() == null) {
                verifier.parse(headers, in.timestamp, "unused");
            } else {
                SeriesRecord.read(verifier, headers, in.timestamp); // the series headers, then the rest
            }
        } catch (ContractViolation v) {
            throw new ContractViolation(v.code(), "rule " + rule.name() + ": " + v.getMessage());
        }
        return new Record<>(in.key, value, in.timestamp, headers);
    }

    /**
     * The due time: the source record's timestamp plus the delay, written as {@code delay-until}, so the delay counts
     * from the source record whatever the intake's timestamp type and however long the rules took to read it.
     */
    private static long dueAt(Rule rule, RuleInput in) throws ContractViolation {
        long delay = rule.delay().millis(rule.name(), in);
        try {
            return Math.addExact(in.timestamp, delay);
        } catch (ArithmeticException e) {
            throw new ContractViolation(
                    ErrorCode.INVALID_DELAY,
                    "rule " + rule.name() + ": a delay of " + delay + "ms after the record's timestamp " + in.timestamp
                            + " overflows");
        }
    }

    /**
     * The deadletter record: the source record's key, value and headers with the intake's error headers
     * ({@code delay-error}, {@code delay-error-message}, {@code delay-origin} = the source record,
     * {@code delay-attempt: 0}), plus {@value #RULE_HEADER}.
     */
    static Record<byte[], byte[]> deadletter(
            String deadletterTopic, Rule rule, RuleInput in, ErrorCode code, String message) {
        ConsumerRecord<byte[], byte[]> source = new ConsumerRecord<>(
                in.topic,
                in.partition,
                in.offset,
                in.timestamp,
                TimestampType.CREATE_TIME,
                -1,
                -1,
                in.key,
                in.value,
                in.headers == null ? new RecordHeaders() : in.headers,
                Optional.empty());
        ProducerRecord<byte[], byte[]> record = DeliveryRecords.rejectedIntake(deadletterTopic, source, code, message);
        record.headers().remove(RULE_HEADER);
        record.headers().add(RULE_HEADER, utf8(rule.name()));
        return new Record<>(record.key(), record.value(), in.timestamp, record.headers());
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}

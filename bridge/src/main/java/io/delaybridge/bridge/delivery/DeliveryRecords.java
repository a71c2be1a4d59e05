package io.delaybridge.bridge.delivery;

import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.schemas.Envelope;
import io.delaybridge.schemas.ErrorCode;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * Builds the records the bridge produces: deliveries to target topics, and deadletter records.
 *
 * <p>A delivered record carries the original key, value and user headers, plus the provenance headers
 * {@code delay-id}, {@code delay-due-at}, {@code delay-origin} and {@code delay-attempt}.
 *
 * <p>A deadletter record carries everything needed to replay it into the intake as it is: the original key, value
 * and headers, and for a failed delivery the control headers rebuilt from what was stored ({@code delay-target},
 * {@code delay-until} set to the original due time, {@code delay-id}, {@code delay-partition}). Headers the bridge
 * adds ({@code delay-error}, {@code delay-error-message}, {@code delay-origin}, {@code delay-attempt},
 * {@code delay-due-at}) replace any earlier ones, so a record that fails twice does not carry two reasons.
 */
public final class DeliveryRecords {

    private DeliveryRecords() {}

    /** The record delivered to the target topic. */
    public static ProducerRecord<byte[], byte[]> toTarget(Envelope envelope, String id, long dueAt, int attempt) {
        Headers headers = new RecordHeaders();
        for (Header header : envelope.headers()) {
            if (!DelayHeaders.SERIES.equals(header.key())) { // a series' stored state stays with the bridge
                headers.add(header);
            }
        }
        headers.add(DelayHeaders.ID, utf8(id));
        headers.add(DelayHeaders.DUE_AT, utf8(Long.toString(dueAt)));
        headers.add(DelayHeaders.ORIGIN, utf8(envelope.origin()));
        headers.add(DelayHeaders.ATTEMPT, utf8(Integer.toString(attempt)));
        return new ProducerRecord<>(
                envelope.target(), envelope.partition(), null, envelope.key(), envelope.value(), headers);
    }

    /** The deadletter record for an intake record the bridge refused. */
    public static ProducerRecord<byte[], byte[]> rejectedIntake(
            String deadletterTopic, ConsumerRecord<byte[], byte[]> record, ErrorCode code, String message) {
        Headers headers = new RecordHeaders();
        for (Header header : record.headers()) {
            if (!DelayHeaders.isProvenance(header.key())) {
                headers.add(header);
            }
        }
        addError(headers, code, message, Envelope.origin(record.topic(), record.partition(), record.offset()), 0);
        return new ProducerRecord<>(deadletterTopic, null, null, record.key(), record.value(), headers);
    }

    /** The deadletter record for a stored message that could not be delivered. */
    public static ProducerRecord<byte[], byte[]> failedDelivery(
            String deadletterTopic,
            Envelope envelope,
            String id,
            long dueAt,
            int attempt,
            ErrorCode code,
            String message) {
        Headers headers = new RecordHeaders();
        headers.add(DelayHeaders.TARGET, utf8(envelope.target()));
        headers.add(DelayHeaders.UNTIL, utf8(Long.toString(dueAt)));
        headers.add(DelayHeaders.ID, utf8(id));
        if (envelope.partition() != null) {
            headers.add(DelayHeaders.PARTITION, utf8(envelope.partition().toString()));
        }
        for (Header header : envelope.headers()) {
            headers.add(header);
        }
        addError(headers, code, message, envelope.origin(), attempt);
        return new ProducerRecord<>(deadletterTopic, null, null, envelope.key(), envelope.value(), headers);
    }

    /** The deadletter record for stored bytes that no longer decode: the raw bytes are kept as the value. */
    public static ProducerRecord<byte[], byte[]> corruptEnvelope(
            String deadletterTopic, String id, long dueAt, int attempt, byte[] stored, String message) {
        Headers headers = new RecordHeaders();
        headers.add(DelayHeaders.ID, utf8(id));
        headers.add(DelayHeaders.DUE_AT, utf8(Long.toString(dueAt)));
        addError(headers, ErrorCode.CORRUPT_ENVELOPE, message, "", attempt);
        return new ProducerRecord<>(deadletterTopic, null, null, utf8(id), stored, headers);
    }

    private static void addError(Headers headers, ErrorCode code, String message, String origin, int attempt) {
        headers.add(DelayHeaders.ERROR, utf8(code.name()));
        headers.add(DelayHeaders.ERROR_MESSAGE, utf8(message));
        headers.add(DelayHeaders.ORIGIN, utf8(origin));
        headers.add(DelayHeaders.ATTEMPT, utf8(Integer.toString(attempt)));
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}

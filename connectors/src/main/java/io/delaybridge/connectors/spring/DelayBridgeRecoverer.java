package io.delaybridge.connectors.spring;

import io.delaybridge.connectors.Delay;
import io.delaybridge.connectors.DelayedRecords;
import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.schemas.IntakeOrigin;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import org.apache.commons.logging.LogFactory;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.springframework.core.log.LogAccessor;
import org.springframework.kafka.core.KafkaOperations;
import org.springframework.kafka.listener.ConsumerAwareRecordRecoverer;
import org.springframework.kafka.listener.DeadLetterPublishingRecoverer;
import org.springframework.kafka.support.KafkaHeaders;

/**
 * What becomes of a record whose listener failed for good on this delivery: another delivery later, through the
 * bridge, or the dead-letter topic. {@link DelayBridgeErrorHandler} calls it once its blocking retries are spent;
 * build it with {@link DelayBridgeErrorHandler.Builder#buildRecoverer()} to plug it in elsewhere, e.g. into a
 * {@code DefaultAfterRollbackProcessor} of a transactional container.
 *
 * <p>For delivery {@code n} (the {@value RetryHeaders#ATTEMPT} header, 1 when absent) of a record that failed
 * with a retryable exception and {@code n < attempts}: one record to the intake topic with the same key, value and
 * headers (minus the bridge's own {@code delay-} headers of the last delivery), {@code delay-target} the topic the
 * record came from (or the configured retry topic), {@code delay-ms} from the {@link RetryBackOff} for retry
 * {@code n}, {@code delay-id} {@code <topic>-<partition>-<offset>-retry-<n+1>} of the first failed delivery,
 * {@code delay-partition} the partition of that delivery (unless retries are left to the partitioner or go to a retry
 * topic), {@value RetryHeaders#ATTEMPT}{@code : n+1}, {@value RetryHeaders#ORIGIN} and
 * {@value RetryHeaders#ORIGIN_TIMESTAMP}. The send is waited for:
 * when this method returns, the intake has the record, and only then does the container commit the failed record's
 * offset. A failed send throws, so the container handles the record again (the error handler's retry).
 *
 * <p>Otherwise (a not-retryable exception, or the last attempt) the record goes to the dead-letter recoverer, a
 * {@link DeadLetterPublishingRecoverer} unless another was given, with {@value RetryHeaders#ATTEMPT} set to the
 * deliveries made.
 */
public final class DelayBridgeRecoverer implements ConsumerAwareRecordRecoverer {

    private static final LogAccessor LOG = new LogAccessor(LogFactory.getLog(DelayBridgeRecoverer.class));

    private final KafkaOperations<Object, Object> template;
    private final String intake;
    private final String retryTopic;
    private final RetryBackOff backOff;
    private final int attempts;
    private final boolean samePartition;
    private final Duration sendTimeout;
    private final ConsumerAwareRecordRecoverer deadLetter;
    private volatile Predicate<Exception> retryable;

    @SuppressWarnings("unchecked")
    DelayBridgeRecoverer(
            KafkaOperations<?, ?> template,
            String intake,
            String retryTopic,
            RetryBackOff backOff,
            int attempts,
            boolean samePartition,
            Duration sendTimeout,
            ConsumerAwareRecordRecoverer deadLetter,
            Predicate<Exception> retryable) {
        this.template = (KafkaOperations<Object, Object>) template;
        this.intake = intake;
        this.retryTopic = retryTopic;
        this.backOff = backOff;
        this.attempts = attempts;
        this.samePartition = samePartition;
        this.sendTimeout = sendTimeout;
        this.deadLetter = deadLetter;
        this.retryable = retryable;
    }

    void classifyWith(Predicate<Exception> retryable) {
        this.retryable = retryable;
    }

    @Override
    public void accept(ConsumerRecord<?, ?> record, Consumer<?, ?> consumer, Exception exception) {
        int attempt = attemptOf(record);
        if (attempt >= attempts || !retryable.test(exception)) {
            LOG.debug(() -> "dead-lettering " + record.topic() + "-" + record.partition() + "@" + record.offset()
                    + " after delivery " + attempt + " of " + attempts + ": " + exception);
            deadLetter.accept(record, consumer, exception);
            return;
        }
        ProducerRecord<Object, Object> retry = retryRecord(record, attempt);
        try {
            if (template.isTransactional() && !template.inTransaction() && !template.isAllowNonTransactional()) {
                template.executeInTransaction(t -> t.send(retry)).get(sendTimeout.toMillis(), TimeUnit.MILLISECONDS);
            } else {
                template.send(retry).get(sendTimeout.toMillis(), TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KafkaException("interrupted while sending the retry of " + origin(record) + " to " + intake, e);
        } catch (ExecutionException | TimeoutException e) {
            throw new KafkaException(
                    "could not send the retry of " + origin(record) + " (delivery " + (attempt + 1)
                            + ") to the intake topic " + intake + "; the record is handled again: " + e,
                    e);
        }
        LOG.debug(() -> "retry " + attempt + " of " + origin(record) + " scheduled through " + intake);
    }

    /** The intake record that brings {@code record} back for delivery {@code attempt + 1}. */
    ProducerRecord<Object, Object> retryRecord(ConsumerRecord<?, ?> record, int attempt) {
        String origin = origin(record);
        List<Header> kept = new ArrayList<>();
        for (Header h : record.headers()) {
            if (!DelayHeaders.isControl(h.key()) && !h.key().equals(RetryHeaders.ATTEMPT)) {
                kept.add(h);
            }
        }
        if (record.headers().lastHeader(RetryHeaders.ORIGIN) == null) {
            kept.add(header(RetryHeaders.ORIGIN, origin));
        }
        if (record.headers().lastHeader(RetryHeaders.ORIGIN_TIMESTAMP) == null) {
            kept.add(
                    header(RetryHeaders.ORIGIN_TIMESTAMP, record.timestampType().name() + "/" + record.timestamp()));
        }
        kept.add(header(RetryHeaders.ATTEMPT, Integer.toString(attempt + 1)));
        String target = retryTopic != null ? retryTopic : record.topic();
        DelayedRecords.Schedule<Object, Object> retry = DelayedRecords.<Object, Object>to(
                        target, record.key(), record.value(), Delay.of(backOff.delayBefore(attempt)))
                .withId(origin.replace('/', '-') + "-retry-" + (attempt + 1))
                .withHeaders(kept)
                .intake(intake);
        if (samePartition && retryTopic == null) {
            // back on the partition the record came from, whichever client's partitioner placed the original
            IntakeOrigin first = IntakeOrigin.parse(origin);
            retry = retry.withPartition(
                    first != null && first.topic().equals(target) ? first.partition() : record.partition());
        }
        return retry.toRecord();
    }

    /**
     * The headers a dead-letter record gets beside Spring's exception headers: Spring's {@code kafka_dlt-original-*}
     * position and timestamp of the first delivery (the recoverer excludes Spring's own, which would name the last
     * copy the bridge delivered), the deliveries made, the first failure and {@value RetryHeaders#LAST}.
     */
    static Headers deadLetterHeaders(ConsumerRecord<?, ?> record) {
        Headers headers = new RecordHeaders();
        if (record.headers().lastHeader(RetryHeaders.ATTEMPT) == null) {
            headers.add(header(RetryHeaders.ATTEMPT, "1"));
        }
        if (record.headers().lastHeader(RetryHeaders.ORIGIN) == null) {
            headers.add(header(RetryHeaders.ORIGIN, origin(record)));
        }
        String last = new IntakeOrigin(record.topic(), record.partition(), record.offset()).toString();
        headers.add(header(RetryHeaders.LAST, last));
        IntakeOrigin first = IntakeOrigin.parse(origin(record));
        if (first == null) { // an origin header someone else wrote: describe the record itself
            first = new IntakeOrigin(record.topic(), record.partition(), record.offset());
        }
        headers.add(header(KafkaHeaders.DLT_ORIGINAL_TOPIC, first.topic()));
        headers.add(new RecordHeader(
                KafkaHeaders.DLT_ORIGINAL_PARTITION,
                ByteBuffer.allocate(Integer.BYTES).putInt(first.partition()).array()));
        headers.add(new RecordHeader(
                KafkaHeaders.DLT_ORIGINAL_OFFSET,
                ByteBuffer.allocate(Long.BYTES).putLong(first.offset()).array()));
        String type = record.timestampType().name();
        long timestamp = record.timestamp();
        Header h = record.headers().lastHeader(RetryHeaders.ORIGIN_TIMESTAMP);
        if (h != null && h.value() != null) {
            String v = new String(h.value(), StandardCharsets.UTF_8);
            int slash = v.indexOf('/');
            try {
                timestamp = Long.parseLong(v.substring(slash + 1));
                type = slash > 0 ? v.substring(0, slash) : type;
            } catch (NumberFormatException e) {
                // unreadable: the last delivery's timestamp, as Spring would write
            }
        }
        headers.add(new RecordHeader(
                KafkaHeaders.DLT_ORIGINAL_TIMESTAMP,
                ByteBuffer.allocate(Long.BYTES).putLong(timestamp).array()));
        headers.add(header(KafkaHeaders.DLT_ORIGINAL_TIMESTAMP_TYPE, type));
        return headers;
    }

    /** The delivery a record is on: its {@value RetryHeaders#ATTEMPT}, 1 without one (or an unreadable one). */
    static int attemptOf(ConsumerRecord<?, ?> record) {
        Header h = record.headers().lastHeader(RetryHeaders.ATTEMPT);
        if (h == null || h.value() == null) {
            return 1;
        }
        try {
            return Math.max(1, Integer.parseInt(new String(h.value(), StandardCharsets.UTF_8).trim()));
        } catch (NumberFormatException e) {
            return 1;
        }
    }

    /** {@code topic/partition/offset} of the record's first failed delivery. */
    static String origin(ConsumerRecord<?, ?> record) {
        Header h = record.headers().lastHeader(RetryHeaders.ORIGIN);
        if (h != null && h.value() != null) {
            return new String(h.value(), StandardCharsets.UTF_8);
        }
        return new IntakeOrigin(record.topic(), record.partition(), record.offset()).toString();
    }

    private static Header header(String name, String value) {
        return new RecordHeader(name, value.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public String toString() {
        return "DelayBridgeRecoverer[intake=" + intake + (retryTopic != null ? ", retryTopic=" + retryTopic : "")
                + ", attempts=" + attempts + ", " + backOff + (samePartition ? "" : ", partitioner") + "]";
    }
}

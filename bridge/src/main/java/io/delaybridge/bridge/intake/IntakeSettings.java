package io.delaybridge.bridge.intake;

import io.delaybridge.bridge.log.IntakeLog;
import io.delaybridge.bridge.log.RecordTranslator;
import io.delaybridge.schemas.TargetPolicy;
import java.time.Duration;
import java.util.List;

/**
 * What the intake needs to know, as plain values.
 *
 * @param topic           the intake topic
 * @param deadletterTopic where rejected records go
 * @param maxDelayMillis  the longest accepted delay, from the record's timestamp
 * @param maxRecordBytes  the largest accepted record (key + value + headers)
 * @param allowedTargets  regular expressions a target topic must match fully; empty allows every topic that is not
 *                        forbidden outright
 * @param pollTimeout     how long one poll waits for records
 * @param commitInterval  how long the offsets of stored records not due soon may wait for their commit; zero commits
 *                        every stored poll at once
 * @param retryBackoff    the first wait after Redis or Kafka refused a batch; doubles up to {@code maxRetryBackoff}
 * @param maxRetryBackoff the longest wait between two tries of the same batch
 * @param cancelMemoryMillis how long (in record time) a cancel is remembered, so that a schedule of the same id from
 *                           an older record read later is dropped
 * @param expressWindowMillis records due at most this long after Redis' clock when read are delivered from the intake
 *                            (the express path); {@link ExpressGate#OFF} turns the path off
 * @param expressBufferRecords at most this many express records are held in memory at once; more park in the store
 * @param expressBufferBytes   at most this many bytes of express records are held in memory at once
 * @param hotWindowMillis      schedules due more than this long after now when read wait in the far tier (their
 *                             payload left in the intake's log), if its retention keeps them ({@link FarPolicy});
 *                             {@link FarPolicy#OFF} keeps every record hot
 * @param farRetentionMarginMillis a record waits far only if the intake keeps it until its due time plus this
 * @param retentionCheckInterval   how often the intake topic's retention is read again ({@link RetentionWatch})
 */
public record IntakeSettings(
        String topic,
        String deadletterTopic,
        long maxDelayMillis,
        int maxRecordBytes,
        List<String> allowedTargets,
        Duration pollTimeout,
        Duration commitInterval,
        Duration retryBackoff,
        Duration maxRetryBackoff,
        long cancelMemoryMillis,
        long expressWindowMillis,
        int expressBufferRecords,
        long expressBufferBytes,
        long hotWindowMillis,
        long farRetentionMarginMillis,
        Duration retentionCheckInterval) {

    /** {@code expressWindowMillis} set to this turns the express path off. */
    public static final long EXPRESS_OFF = ExpressGate.OFF;

    /** Settings with the far tier off. */
    public IntakeSettings(
            String topic,
            String deadletterTopic,
            long maxDelayMillis,
            int maxRecordBytes,
            List<String> allowedTargets,
            Duration pollTimeout,
            Duration commitInterval,
            Duration retryBackoff,
            Duration maxRetryBackoff,
            long cancelMemoryMillis,
            long expressWindowMillis,
            int expressBufferRecords,
            long expressBufferBytes) {
        this(
                topic,
                deadletterTopic,
                maxDelayMillis,
                maxRecordBytes,
                allowedTargets,
                pollTimeout,
                commitInterval,
                retryBackoff,
                maxRetryBackoff,
                cancelMemoryMillis,
                expressWindowMillis,
                expressBufferRecords,
                expressBufferBytes,
                FarPolicy.OFF,
                0,
                Duration.ofMinutes(5));
    }

    /** Settings with the express path and the far tier off. */
    public IntakeSettings(
            String topic,
            String deadletterTopic,
            long maxDelayMillis,
            int maxRecordBytes,
            List<String> allowedTargets,
            Duration pollTimeout,
            Duration commitInterval,
            Duration retryBackoff,
            Duration maxRetryBackoff,
            long cancelMemoryMillis) {
        this(
                topic,
                deadletterTopic,
                maxDelayMillis,
                maxRecordBytes,
                allowedTargets,
                pollTimeout,
                commitInterval,
                retryBackoff,
                maxRetryBackoff,
                cancelMemoryMillis,
                ExpressGate.OFF,
                0,
                0,
                FarPolicy.OFF,
                0,
                Duration.ofMinutes(5));
    }

    /** The intake log as the thaw reads it back: topic, deadletter topic, longest delay, translator. */
    public IntakeLog log() {
        return new IntakeLog(topic, deadletterTopic, maxDelayMillis, translator());
    }

    /** The translator of this intake's records: what a record must be to be taken. */
    public RecordTranslator translator() {
        return new RecordTranslator(
                new TargetPolicy(topic, deadletterTopic, allowedTargets),
                maxDelayMillis,
                maxRecordBytes,
                cancelMemoryMillis);
    }
}

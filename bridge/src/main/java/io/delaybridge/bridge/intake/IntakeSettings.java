package io.delaybridge.bridge.intake;

import io.delaybridge.bridge.log.IntakeLog;
import io.delaybridge.bridge.log.RecordTranslator;
import io.delaybridge.schemas.TargetPolicy;
import java.time.Duration;
import java.util.List;

/**
 * What the intake needs to know, as plain values.
 *
 * @param rules   what a record must be to be taken: topics, longest delay, largest record, targets, cancel memory
 * @param pacing  poll timeout, commit interval, retry backoff
 * @param express which records take the express path; {@link ExpressLimits#OFF} turns it off
 * @param far     which schedules wait in the far tier; {@link FarLimits#OFF} keeps every record hot
 */
public record IntakeSettings(RecordRules rules, IntakePacing pacing, ExpressLimits express, FarLimits far) {

    /** {@code expressWindowMillis} set to this turns the express path off. */
    public static final long EXPRESS_OFF = ExpressGate.OFF;

    /** Settings with the far tier off. */
    public IntakeSettings(RecordRules rules, IntakePacing pacing, ExpressLimits express) {
        this(rules, pacing, express, FarLimits.OFF);
    }

    /** Settings with the express path and the far tier off. */
    public IntakeSettings(RecordRules rules, IntakePacing pacing) {
        this(rules, pacing, ExpressLimits.OFF, FarLimits.OFF);
    }

    public String topic() {
        return rules.topic();
    }

    public String deadletterTopic() {
        return rules.deadletterTopic();
    }

    public long maxDelayMillis() {
        return rules.maxDelayMillis();
    }

    public int maxRecordBytes() {
        return rules.maxRecordBytes();
    }

    public List<String> allowedTargets() {
        return rules.allowedTargets();
    }

    public long cancelMemoryMillis() {
        return rules.cancelMemoryMillis();
    }

    public Duration pollTimeout() {
        return pacing.pollTimeout();
    }

    public Duration commitInterval() {
        return pacing.commitInterval();
    }

    public Duration retryBackoff() {
        return pacing.retryBackoff();
    }

    public Duration maxRetryBackoff() {
        return pacing.maxRetryBackoff();
    }

    public long expressWindowMillis() {
        return express.windowMillis();
    }

    public int expressBufferRecords() {
        return express.bufferRecords();
    }

    public long expressBufferBytes() {
        return express.bufferBytes();
    }

    public long hotWindowMillis() {
        return far.hotWindowMillis();
    }

    public long farRetentionMarginMillis() {
        return far.retentionMarginMillis();
    }

    public Duration retentionCheckInterval() {
        return far.retentionCheckInterval();
    }

    /** The intake log as the thaw reads it back: topic, deadletter topic, longest delay, translator. */
    public IntakeLog log() {
        return new IntakeLog(topic(), deadletterTopic(), maxDelayMillis(), translator());
    }

    /** The translator of this intake's records: what a record must be to be taken. */
    public RecordTranslator translator() {
        return new RecordTranslator(
                new TargetPolicy(topic(), deadletterTopic(), allowedTargets()),
                maxDelayMillis(),
                maxRecordBytes(),
                cancelMemoryMillis());
    }
}

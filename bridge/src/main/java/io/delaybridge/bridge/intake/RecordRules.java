package io.delaybridge.bridge.intake;

import java.util.List;

/**
 * What an intake record must be to be taken, as plain values ({@link IntakeSettings#translator()}).
 *
 * @param topic              the intake topic
 * @param deadletterTopic    where rejected records go
 * @param maxDelayMillis     the longest accepted delay, from the record's timestamp
 * @param maxRecordBytes     the largest accepted record (key + value + headers)
 * @param allowedTargets     regular expressions a target topic must match fully; empty allows every topic that is not
 *                           forbidden outright
 * @param cancelMemoryMillis how long (in record time) a cancel is remembered, so that a schedule of the same id from
 *                           an older record read later is dropped
 */
public record RecordRules(
        String topic,
        String deadletterTopic,
        long maxDelayMillis,
        int maxRecordBytes,
        List<String> allowedTargets,
        long cancelMemoryMillis) {}

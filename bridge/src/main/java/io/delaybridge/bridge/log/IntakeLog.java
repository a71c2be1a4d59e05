package io.delaybridge.bridge.log;

/**
 * The intake log as those who read it back see it (the far tier's thaw): its topic, the deadletter topic its refused
 * records go to, the longest delay a record may ask for, and how a record translates.
 */
public record IntakeLog(String topic, String deadletterTopic, long maxDelayMillis, RecordTranslator translator) {}

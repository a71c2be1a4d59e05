package io.delaybridge.schemas;

/**
 * Stable reason codes, written to the {@value DelayHeaders#ERROR} header of deadletter records.
 *
 * <p>The names are part of the public contract: alert on them, route on them, never parse the accompanying
 * {@value DelayHeaders#ERROR_MESSAGE} text. Codes are only ever added, never renamed.
 */
public enum ErrorCode {
    /** A scheduling record has no {@value DelayHeaders#TARGET} header, or its value is blank. */
    MISSING_TARGET,
    /** {@value DelayHeaders#TARGET} is not a legal Kafka topic name. */
    INVALID_TARGET,
    /** {@value DelayHeaders#TARGET} is legal but not allowed: internal, the intake or deadletter topic, or not allow-listed. */
    TARGET_FORBIDDEN,
    /** A scheduling record has neither {@value DelayHeaders#DELAY_MS} nor {@value DelayHeaders#UNTIL}. */
    MISSING_DELAY,
    /** A scheduling record has both {@value DelayHeaders#DELAY_MS} and {@value DelayHeaders#UNTIL}. */
    CONFLICTING_DELAY,
    /** {@value DelayHeaders#DELAY_MS} or {@value DelayHeaders#UNTIL} cannot be parsed, is negative, or overflows. */
    INVALID_DELAY,
    /** The due time lies further beyond the record timestamp than the bridge's maximum delay. */
    DELAY_TOO_LONG,
    /** {@value DelayHeaders#ID} is blank or longer than 512 UTF-8 bytes. */
    INVALID_ID,
    /** {@value DelayHeaders#PARTITION} is not a non-negative integer. */
    INVALID_PARTITION,
    /** {@value DelayHeaders#CANCEL} has a blank or over-long id, or comes with other control headers. */
    INVALID_CANCEL,
    /** A control header value is not valid UTF-8. */
    INVALID_HEADER,
    /** A control header appears more than once on the record. */
    DUPLICATE_HEADER,
    /** A {@code delay-} header that is neither in the contract nor provenance, e.g. the typo {@code delay-msec}. */
    UNKNOWN_HEADER,
    /** The record is larger than the bridge is configured to store. */
    PAYLOAD_TOO_LARGE,
    /** The target topic rejected the record, or every delivery attempt failed. */
    DELIVERY_FAILED,
    /** A message stored by the bridge could not be decoded (see {@link CorruptEnvelopeException}). */
    CORRUPT_ENVELOPE,
    /** Delay rules: a rule's id or cancel template uses {@code {key}} and the source record has no key. */
    MISSING_KEY,
    /** Delay rules: a header or JSON field that a rule's template needs is not on the source record. */
    MISSING_FIELD,
    /** Delay rules: a rule reads a JSON field and the source record's value is not a JSON object. */
    INVALID_VALUE
}

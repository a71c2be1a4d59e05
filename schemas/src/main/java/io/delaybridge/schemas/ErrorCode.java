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
    INVALID_VALUE,
    /**
     * Series ({@link SeriesHeaders}): both {@value SeriesHeaders#CRON} and {@value SeriesHeaders#EVERY}, or either
     * with {@value DelayHeaders#DELAY_MS}. Series codes are checked by the schemas module; the bridge does not run
     * series yet.
     */
    CONFLICTING_SCHEDULE,
    /** Series: a series-only header such as {@value SeriesHeaders#ZONE} without a {@value SeriesHeaders#CRON}. */
    MISSING_SCHEDULE,
    /** Series: {@value SeriesHeaders#CRON} is not a supported cron expression, or never matches. */
    INVALID_CRON,
    /** Series: {@value SeriesHeaders#EVERY} is not a delay, or shorter than one second. */
    INVALID_INTERVAL,
    /** Series: {@value SeriesHeaders#CRON} without {@value SeriesHeaders#ZONE}. */
    MISSING_ZONE,
    /** Series: {@value SeriesHeaders#ZONE} is not an IANA time zone name. */
    INVALID_ZONE,
    /** Series: {@value SeriesHeaders#ZONE} or a daylight-saving choice with {@value SeriesHeaders#EVERY}. */
    ZONE_WITH_INTERVAL,
    /** Series: no {@value DelayHeaders#ID}; a series needs one to be replaced and cancelled. */
    MISSING_SERIES_ID,
    /** Series: {@value SeriesHeaders#END} is not a due time. */
    INVALID_END,
    /** Series: {@value SeriesHeaders#COUNT} is not a positive integer. */
    INVALID_COUNT,
    /** Series: no occurrence at all between the start and {@value SeriesHeaders#END}. */
    EMPTY_SERIES,
    /** Series: {@value SeriesHeaders#DST_GAP} is neither {@code skip} nor {@code shift}. */
    INVALID_DST_GAP,
    /** Series: {@value SeriesHeaders#DST_OVERLAP} is neither {@code once} nor {@code twice}. */
    INVALID_DST_OVERLAP,
    /** Series: {@value SeriesHeaders#MISSED} is not {@code one}, {@code all} or {@code skip}. */
    INVALID_MISSED
}

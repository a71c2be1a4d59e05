package io.delaybridge.connectors.spring;

/**
 * The headers {@link DelayBridgeErrorHandler} adds to a retried record. Neither starts with {@code delay-}, so the
 * bridge passes them through to the listener like any user header.
 */
public final class RetryHeaders {

    /**
     * On a record sent to the intake for another try, the number of the delivery it will be (2 for the first
     * retry); on a dead-letter record, the deliveries made (1 for a not-retryable exception on the first).
     */
    public static final String ATTEMPT = "x-delay-retry-attempt";

    /**
     * {@code topic/partition/offset} of the record's first failed delivery, kept across every retry; the retries'
     * message ids ({@code delay-id}) derive from it and the attempt.
     */
    public static final String ORIGIN = "x-delay-retry-origin";

    /**
     * {@code <timestamp type>/<epoch ms>} of the record's first failed delivery (e.g. {@code CREATE_TIME/1764000000000}),
     * kept across every retry: the dead-letter record's {@code kafka_dlt-original-timestamp} comes from it.
     */
    public static final String ORIGIN_TIMESTAMP = "x-delay-retry-origin-timestamp";

    /**
     * On a dead-letter record, {@code topic/partition/offset} of the delivery that failed last (the bridge's copy
     * after retries; the original itself when it failed on its first delivery). Spring's
     * {@code kafka_dlt-original-*} headers describe the first delivery.
     */
    public static final String LAST = "x-delay-retry-last";

    private RetryHeaders() {}
}

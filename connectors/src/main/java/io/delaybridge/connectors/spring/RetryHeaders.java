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

    private RetryHeaders() {}
}

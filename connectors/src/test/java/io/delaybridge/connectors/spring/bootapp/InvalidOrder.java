package io.delaybridge.connectors.spring.bootapp;

/** An order no retry can fix: listed under {@code delay-bridge.retry.not-retryable}. */
public class InvalidOrder extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public InvalidOrder(String message) {
        super(message);
    }
}

package io.delaybridge.testkit;

/** A child server could not bind its port; a caller that picked the port may retry with another one. */
final class PortInUseException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    PortInUseException(String message) {
        super(message);
    }
}

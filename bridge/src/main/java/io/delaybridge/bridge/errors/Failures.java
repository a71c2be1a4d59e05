package io.delaybridge.bridge.errors;

/** The one-line form of a failure, for a log line or a header: every package of the service writes it the same way. */
public final class Failures {

    private Failures() {}

    /** The exception's simple name and message, without a stack trace. */
    public static String describe(Throwable error) {
        String message = error.getMessage();
        return error.getClass().getSimpleName() + (message == null ? "" : ": " + message);
    }
}

package io.delaybridge.bridge;

/**
 * What the integration test classes that run at once in one JVM share beyond the real servers, as resource locks.
 */
public final class SharedJvm {

    /**
     * Logback's configuration and the names of the bridge's threads. A bridge started in this JVM configures logging
     * as it starts (Dropwizard resets Logback: appenders a test added are gone) and starts threads of the same names as
     * any other. Classes that start bridges in this JVM beside other classes take it to read; classes that capture log
     * lines or look a thread up by its name take it to write, so that no bridge starts in this JVM while they run.
     */
    public static final String LOGGING_AND_THREADS = "logback configuration and bridge thread names";

    private SharedJvm() {}
}

package io.delaybridge.devmode;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.filter.Filter;
import ch.qos.logback.core.spi.FilterReply;
import java.nio.file.Path;
import org.slf4j.LoggerFactory;

/**
 * What dev mode's terminal shows of the logs in its JVM: a few lines, never a library's DEBUG chatter or a client's
 * configuration dump. The full logs go to files (the bridge's through its {@code logging} settings in the
 * generated {@code bridge.yml}, the broker's and Redis's from the test kit), and the banner names them.
 *
 * <ul>
 *   <li>Before the bridge runs ({@link #librariesAtWarn()}): only warnings and errors reach the terminal; dev mode
 *       prints its own progress itself, one line per step. Without this, Logback logs at DEBUG and the admin client
 *       that creates the example topic prints some 300 lines.</li>
 *   <li>Once Dropwizard has set up the bridge's logging ({@link #bridgeToTerminal()}): everything at INFO goes to
 *       the bridge's log file, and the terminal shows the bridge's own INFO lines and everyone's warnings and
 *       errors.</li>
 * </ul>
 *
 * The terminal appender writes synchronously (Dropwizard's appenders are asynchronous), so that the banner, printed
 * once the bridge listens, comes after every line logged before it.
 */
final class DevLogging {

    /** The bridge's own loggers: their INFO lines are what the bridge says. */
    static final String BRIDGE_LOGGERS = "io.delaybridge.bridge";

    private static final String TERMINAL = "dev-mode-terminal";
    private static final String TERMINAL_PATTERN = "%d{HH:mm:ss.SSS} %-5level %logger{0}: %msg%n%ex{short}";

    private DevLogging() {}

    /** Replaces whatever configuration Logback found: warnings and errors to the terminal, nothing else. */
    static void librariesAtWarn() {
        LoggerContext context = context();
        context.reset();
        Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        root.setLevel(Level.WARN);
        root.addAppender(terminal(context));
    }

    /**
     * Adds the terminal to the logging Dropwizard has configured from {@link #bridgeLogging(Path)}: the bridge's
     * INFO lines and everyone's warnings and errors.
     */
    static void bridgeToTerminal() {
        LoggerContext context = context();
        context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).addAppender(terminal(context));
    }

    /**
     * Stops logging to the terminal (the log files keep everything): after a failed start, so that the error and the
     * log to read stay the last lines, not the retries of clients whose broker is stopping.
     */
    static void terminalOff() {
        context().getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).detachAppender(TERMINAL);
    }

    /** The {@code logging} section of the bridge's configuration: everything at INFO into {@code logFile}. */
    static String bridgeLogging(Path logFile) {
        return """
                logging:
                  level: INFO
                  appenders:
                    - type: file
                      currentLogFilename: %s
                      archive: false
                      logFormat: "%%-5level [%%d{ISO8601}] [%%thread] %%logger: %%msg%%n%%rEx"
                """.formatted(yamlString(logFile.toAbsolutePath().toString()));
    }

    /** Whether the terminal shows an event: the bridge's INFO lines, and warnings and errors from anyone. */
    static boolean shownOnTerminal(String loggerName, Level level) {
        return level.isGreaterOrEqual(Level.WARN)
                || level.isGreaterOrEqual(Level.INFO)
                        && (loggerName.equals(BRIDGE_LOGGERS) || loggerName.startsWith(BRIDGE_LOGGERS + "."));
    }

    private static ConsoleAppender<ILoggingEvent> terminal(LoggerContext context) {
        PatternLayoutEncoder encoder = new PatternLayoutEncoder();
        encoder.setContext(context);
        encoder.setPattern(TERMINAL_PATTERN);
        encoder.start();
        Filter<ILoggingEvent> filter = new Filter<>() {
            @Override
            public FilterReply decide(ILoggingEvent event) {
                boolean shown = shownOnTerminal(event.getLoggerName(), event.getLevel());
                return shown ? FilterReply.NEUTRAL : FilterReply.DENY;
            }
        };
        filter.start();
        ConsoleAppender<ILoggingEvent> appender = new ConsoleAppender<>();
        appender.setContext(context);
        appender.setName(TERMINAL);
        appender.setEncoder(encoder);
        appender.addFilter(filter);
        appender.start();
        return appender;
    }

    private static LoggerContext context() {
        return (LoggerContext) LoggerFactory.getILoggerFactory();
    }

    private static String yamlString(String value) {
        return '"' + value.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
    }
}

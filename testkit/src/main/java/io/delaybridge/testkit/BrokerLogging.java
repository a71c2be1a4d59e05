package io.delaybridge.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * The logging configurations of a {@link KafkaBroker}'s child JVM, in its data directory: WARN and up, plus the
 * start/stop milestones and the transaction coordinator at INFO, into {@code broker.log}. Both logback's and log4j2's,
 * for whichever binding the class path brings.
 */
final class BrokerLogging {

    private BrokerLogging() {}

    static void write(Path dataDir) throws IOException {
        Map<String, String> info = Map.of(
                "kafka.server.KafkaRaftServer", "INFO",
                "kafka.server.BrokerServer", "INFO",
                "kafka.server.ControllerServer", "INFO",
                // the transaction coordinator: what it fences, aborts, and whose markers it skips (a partition without
                // a leader)
                "kafka.coordinator.transaction", "INFO");
        StringBuilder logback = new StringBuilder()
                .append("<configuration>\n")
                .append("  <appender name=\"OUT\" class=\"ch.qos.logback.core.ConsoleAppender\">\n")
                .append("    <encoder><pattern>%d{HH:mm:ss.SSS} %-5level [%thread] %logger{36} - %msg%n")
                .append("</pattern></encoder>\n")
                .append("  </appender>\n");
        StringBuilder log4j2 = new StringBuilder()
                .append("<Configuration status=\"warn\">\n")
                .append("  <Appenders><Console name=\"OUT\" target=\"SYSTEM_OUT\">")
                .append("<PatternLayout pattern=\"%d{HH:mm:ss.SSS} %-5level [%t] %c{1.} - %msg%n\"/>")
                .append("</Console></Appenders>\n")
                .append("  <Loggers>\n");
        info.forEach((name, level) -> {
            logback.append("  <logger name=\"")
                    .append(name)
                    .append("\" level=\"")
                    .append(level)
                    .append("\"/>\n");
            log4j2.append("    <Logger name=\"")
                    .append(name)
                    .append("\" level=\"")
                    .append(level)
                    .append("\"/>\n");
        });
        logback.append("  <root level=\"WARN\"><appender-ref ref=\"OUT\"/></root>\n</configuration>\n");
        log4j2.append("    <Root level=\"warn\"><AppenderRef ref=\"OUT\"/></Root>\n  </Loggers>\n</Configuration>\n");
        Files.writeString(dataDir.resolve("broker-logback.xml"), logback, StandardCharsets.UTF_8);
        Files.writeString(dataDir.resolve("broker-log4j2.xml"), log4j2, StandardCharsets.UTF_8);
    }
}
